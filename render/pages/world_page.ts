import { BIOMES, BLOCKS } from '../../engine/world/materials.js';
import type { StructuresView } from '../../engine/world/structures.js';
import { page, type PageFrame } from '../layout.js';
import { swatchCss } from '../map/palette.js';
import { WORLD_ZOOM_MAX, WORLD_ZOOM_MIN } from '../map/zoom.js';
import { agentRef, e, link, type AgentName } from './html_bits.js';

export interface WorldMember {
  name: AgentName;
  /** Left out while the member's tile is unrevealed (as the world_agents read does). */
  x?: number;
  y?: number;
}

export interface WorldView {
  members: WorldMember[];
  chunks: { chunk_x: number; chunk_y: number; revealed_tiles: number }[];
  structures: StructuresView;
  /** The permalink's view (`/world?x=&y=&z=`); none of it: fit what is revealed. */
  at: { x?: number; y?: number; z?: number };
}

/** The members listed under the map; the map itself shows every one. */
const MEMBERS_LISTED = 100;

export const WORLD_CSS = `#map{display:block;width:100%;max-width:none;height:clamp(260px,70vh,760px);aspect-ratio:auto;touch-action:none;cursor:grab;border:1px solid #bbb;background:#e4e1da;box-sizing:border-box}
#map:focus-visible{outline:3px solid #0d47a1;outline-offset:2px}
.map-tools{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.5rem 0}
.map-tools button{min-width:2.75rem;min-height:2.5rem;font-size:1.05rem}
.map-status{font-variant-numeric:tabular-nums;font-size:.9em;color:#333;min-height:1.5em;margin:.3rem 0}
.tile-panel{border:1px solid #ccc;padding:.5rem .75rem;background:#fafafa;margin:.5rem 0}
.tile-panel h2{font-size:1.05rem;margin:.2rem 0}
.tile-panel dl{display:grid;grid-template-columns:auto 1fr;gap:.1rem .8rem;margin:.4rem 0}
.tile-panel dd{margin:0}
.legend ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1.1rem}
.swatch{display:inline-block;width:1em;height:1em;border:1px solid rgba(0,0,0,.25);vertical-align:-.15em;margin-right:.35em;box-sizing:border-box}
${swatchCss()}`;

function swatch(kind: string, label: string): string {
  return `<li><span class="swatch ${kind}" aria-hidden="true"></span>${e(label)}</li>`;
}

function legend(): string {
  const biomes = BIOMES.map((biome) => swatch(`biome-${biome}`, biome));
  const blocks = Object.entries(BLOCKS).map(([id, material]) => swatch(`block-${id}`, `${material} (block ${id})`));
  const structures = [
    swatch('member', 'a member, labelled with its handle'),
    swatch('mast', 'relay mast'),
    swatch('link', 'link between masts'),
    swatch('hub', 'the Aether Hub'),
    swatch('road', 'road'),
    swatch('fog', 'not yet revealed'),
  ];
  return `<section class="legend"><h2>Legend</h2>
<h3>Ground, by biome</h3><ul>${biomes.join('')}</ul>
<p>Ground is lit from the north-west: a tile higher than its neighbour there is lighter, a lower one darker.</p>
<h3>Placed blocks (the top block of a tile)</h3><ul>${blocks.join('')}</ul>
<h3>Members and structures</h3><ul>${structures.join('')}</ul></section>`;
}

function permalink(x: number, y: number, z: number): string {
  return `/world?x=${x}&y=${y}&z=${z}`;
}

function membersList(members: WorldMember[]): string {
  if (members.length === 0) return '<p>No members yet.</p>';
  const items = members
    .slice(0, MEMBERS_LISTED)
    .map(
      (member) =>
        `<li>${agentRef(member.name)} ${member.x === undefined ? 'on an unrevealed tile' : `at ${link(permalink(member.x, member.y!, 4), `(${member.x}, ${member.y})`)}`}</li>`,
    );
  const more =
    members.length > MEMBERS_LISTED ? `<p>And ${members.length - MEMBERS_LISTED} more (all in /world.md).</p>` : '';
  return `<ul>${items.join('')}</ul>${more}`;
}

function structuresSummary(built: StructuresView): string {
  const hub = built.hub
    ? `the Aether Hub on mast ${built.hub.relay_id} at (${built.hub.x}, ${built.hub.y})`
    : 'no Aether Hub yet';
  return `${built.masts.length} relay masts, ${built.links.length} links, ${hub}, ${built.roads.length} road tiles`;
}

export function worldPage(frame: PageFrame, view: WorldView): string {
  const { at } = view;
  const asked = [
    at.x === undefined ? '' : ` data-x="${at.x}"`,
    at.y === undefined ? '' : ` data-y="${at.y}"`,
    at.z === undefined ? '' : ` data-z="${at.z}"`,
  ].join('');
  const here = permalink(at.x ?? 1024, at.y ?? 1024, at.z ?? 0);
  return page(
    frame,
    `<p>The plane is 2048 x 2048 tiles. ${view.members.length} members; ${view.chunks.length} of its 1,024 chunks hold revealed tiles; built so far: ${structuresSummary(view.structures)}. The map only watches: it reads the public world routes and refreshes every 15 seconds.</p>
<div class="map-tools"><button type="button" id="map-zoom-in" aria-label="Zoom in">+</button><button type="button" id="map-zoom-out" aria-label="Zoom out">&minus;</button><button type="button" id="map-fit">Fit</button> <a id="map-permalink" href="${e(here)}">Link to this view</a></div>
<canvas id="map" tabindex="0" role="img" aria-label="Map of the revealed world. Arrow keys pan, plus and minus zoom, 0 fits, Enter describes the centre tile." data-min-zoom="${WORLD_ZOOM_MIN}" data-max-zoom="${WORLD_ZOOM_MAX}"${asked}></canvas>
<p id="map-status" class="map-status" aria-live="polite">Loading the map…</p>
<section id="tile-panel" class="tile-panel" aria-live="polite" hidden></section>
<h2>How to look around</h2>
<p>Drag (one finger on a phone) to pan; scroll, pinch or use + and &minus; to zoom, from the whole plane down to single tiles; Fit shows everything revealed. Click or tap a tile to see its biome, height, top block and who discovered it. On the focused map the arrow keys pan, + and - zoom, 0 fits and Enter describes the tile at the centre. The line under the map gives the coordinates and chunk under the pointer; the address bar and "Link to this view" always hold a link to what you see.</p>
${legend()}
<h2>Members</h2>
${membersList(view.members)}
<p>Plain text: ${link('/world.md', '/world.md')}. The same data as JSON: ${link('/api/v1/world/agents', 'members')}, ${link('/api/v1/world/structures', 'structures')}, ${link('/api/v1/world/revealed', 'revealed chunks')}.</p>
<script src="/assets/map.js" defer></script>`,
  );
}
