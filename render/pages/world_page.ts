import { plural } from '../words.js';
import { BIOMES, BLOCKS } from '../../engine/world/materials.js';
import type { StructuresView } from '../../engine/world/structures.js';
import { page, type PageFrame } from '../layout.js';
import { swatchCss } from '../map/palette.js';
import { WORLD_ZOOM_MAX, WORLD_ZOOM_MIN } from '../map/zoom.js';
import { busiestPlaces, imageLink, permalink, viewOf } from '../map/places.js';
import { WORLD_IMAGE_HEIGHT_PX, WORLD_IMAGE_WIDTH_PX } from '../world_image.js';
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
/** Busy places linked under the map, each with a zoomed image of it. */
const BUSY_PLACES_LISTED = 5;
/** Masts named one by one in the summary; more are counted. */
const MASTS_NAMED = 5;

/*
 * The map comes first and lies in a frame: full width on a phone (out of the body's
 * padding), wider than the text column on a desktop. The tile panel and the zoom buttons
 * lie over the map, inside the frame, so the panel opens where the eye is, never below
 * the fold. The canvas, buttons and status line start hidden: the script shows them, and
 * without it the frame holds the server's image (<noscript>).
 */
export const WORLD_CSS = `.map-frame{position:relative;margin:0 0 .5rem}
#map{display:block;width:100%;max-width:none;height:clamp(260px,62vh,760px);height:clamp(260px,62svh,760px);aspect-ratio:auto;touch-action:none;cursor:grab;border:1px solid #bbb;background:#cfcabe;box-sizing:border-box}
#map[hidden]{display:none}
#map:focus-visible{outline:3px solid #0d47a1;outline-offset:2px}
.map-image{display:block;width:100%;height:auto;border:1px solid #bbb;box-sizing:border-box}
.map-tools{position:absolute;z-index:1;left:.5rem;top:.5rem;display:flex;flex-direction:column;gap:.3rem}
.map-tools[hidden]{display:none}
.map-tools button{min-width:2.75rem;min-height:2.75rem;font-size:1.05rem;background:#fff;border:1px solid #888;border-radius:4px}
.map-status{font-variant-numeric:tabular-nums;font-size:.9em;color:#333;min-height:1.5em;margin:.3rem 0}
.tile-panel{position:absolute;z-index:2;top:.5rem;right:.5rem;width:min(20rem,calc(100% - 1rem));max-height:calc(100% - 1rem);overflow:auto;box-sizing:border-box;border:1px solid #888;padding:.5rem .75rem;background:#fafafa;box-shadow:0 2px 10px #0005}
.tile-panel h2{font-size:1.05rem;margin:.2rem 0}
.tile-panel dl{display:grid;grid-template-columns:auto 1fr;gap:.1rem .8rem;margin:.4rem 0}
.tile-panel dd{margin:0}
@media (max-width:40rem){.map-frame{margin-inline:-1rem}#map,.map-image{border-inline:0}.tile-panel{top:auto;bottom:.5rem;left:.5rem;right:.5rem;width:auto;max-height:45%;font-size:.9em}.tile-panel dl{margin:.2rem 0}}
@media (min-width:60rem){.map-frame{margin-inline:calc((52rem - min(100vw - 4rem,90rem)) / 2)}}
.map-legend ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem}
.map-legend li{display:flex;align-items:center;gap:.45em}
.swatch{flex:none;display:inline-block;width:1.1em;height:1.1em;border:1px solid rgba(0,0,0,.3);box-sizing:border-box}
${swatchCss()}`;

function swatch(kind: string, label: string): string {
  return `<li><span class="swatch ${kind}" aria-hidden="true"></span><span>${e(label)}</span></li>`;
}

function legend(): string {
  const biomes = BIOMES.map((biome) => swatch(`biome-${biome}`, biome));
  const blocks = Object.entries(BLOCKS).map(([id, material]) => swatch(`block-${id}`, `${material} (block ${id})`));
  const structures = [
    swatch('member', 'a member, labelled with its handle; "+2": two more on the tile'),
    swatch('mast', 'relay mast'),
    swatch('link', 'link between masts'),
    swatch('hub', 'the Aether Hub'),
    swatch('road', 'road'),
    swatch('fog', 'not yet revealed (dark hatch)'),
  ];
  return `<section class="map-legend"><h2>Legend</h2>
<h3>Ground, by biome</h3><ul>${biomes.join('')}</ul>
<p>Ground is lit from the north-west: a tile higher than its neighbour there is lighter, a lower one darker. Ground dug below its surroundings is darker the deeper it goes.</p>
<h3>Placed blocks (the top block of a tile)</h3><ul>${blocks.join('')}</ul>
<p>Zoomed out, where a tile is smaller than a block's mark, each placed block gets a small square of its colour.</p>
<h3>Members and structures</h3><ul>${structures.join('')}</ul></section>`;
}

function membersList(members: WorldMember[]): string {
  if (members.length === 0) return '<p>No members yet.</p>';
  const items = members
    .slice(0, MEMBERS_LISTED)
    .map(
      (member) =>
        `<li>${agentRef(member.name)} ${member.x === undefined ? 'on an unrevealed tile' : `at ${link(permalink({ x: member.x, y: member.y!, z: 4 }), `(${member.x}, ${member.y})`)}`}</li>`,
    );
  const more =
    members.length > MEMBERS_LISTED ? `<p>And ${members.length - MEMBERS_LISTED} more (all in /world.md).</p>` : '';
  return `<ul>${items.join('')}</ul>${more}`;
}

/** A count linked to the view that shows all it counts. */
function countLink(tiles: readonly { x: number; y: number }[], text: string): string {
  const view = viewOf(tiles);
  return view ? link(permalink(view), text) : e(text);
}

function structuresSummary(built: StructuresView): string {
  const named = built.masts
    .slice(0, MASTS_NAMED)
    .map((mast) => link(permalink({ x: mast.x, y: mast.y, z: 4 }), `(${mast.x}, ${mast.y})`));
  const where = named.length ? ` at ${named.join(', ')}${built.masts.length > MASTS_NAMED ? ', …' : ''}` : '';
  const hub = built.hub
    ? `the Aether Hub on mast ${built.hub.relay_id} at ${link(permalink({ x: built.hub.x, y: built.hub.y, z: 4 }), `(${built.hub.x}, ${built.hub.y})`)}`
    : 'no Aether Hub yet';
  return [
    `${countLink(built.masts, plural(built.masts.length, 'relay mast', 'relay masts'))}${where}`,
    plural(built.links.length, 'link', 'links'),
    hub,
    countLink(built.roads, plural(built.roads.length, 'road tile', 'road tiles')),
  ].join(', ');
}

function busiestList(members: WorldMember[]): string {
  const places = busiestPlaces(members, BUSY_PLACES_LISTED);
  if (places.length === 0) return '<p>Nobody stands on a revealed tile yet.</p>';
  const items = places.map(
    ({ view, members: count }) =>
      `<li>${plural(count, 'member', 'members')} around (${view.x}, ${view.y}): ${link(permalink(view), 'on the map')}, ${link(imageLink(view), 'as an image')}</li>`,
  );
  return `<ul>${items.join('')}</ul>`;
}

/** What the server's image of the world shows, for the no-script image and the link preview alike. */
const WORLD_IMAGE_ALT =
  "The revealed world drawn by the server: ground in its biome's colour, a dark hatch where nothing is revealed yet, members as blue dots, relay masts as red triangles, the Aether Hub as a yellow diamond, roads as dark bands.";

export function worldPage(frame: PageFrame, view: WorldView): string {
  const { at } = view;
  const asked = [
    at.x === undefined ? '' : ` data-x="${at.x}"`,
    at.y === undefined ? '' : ` data-y="${at.y}"`,
    at.z === undefined ? '' : ` data-z="${at.z}"`,
  ].join('');
  const here = permalink({ x: at.x ?? 1024, y: at.y ?? 1024, z: at.z ?? 0 });
  // Without the script, the image of the same view: the one asked for, else the fitted one.
  const query = (['x', 'y', 'z'] as const).flatMap((name) => (at[name] === undefined ? [] : [`${name}=${at[name]}`]));
  const image = `/world.png${query.length ? `?${query.join('&')}` : ''}`;
  const preview_image = {
    path: image,
    width_px: WORLD_IMAGE_WIDTH_PX,
    height_px: WORLD_IMAGE_HEIGHT_PX,
    alt: WORLD_IMAGE_ALT,
  };
  return page(
    { ...frame, preview_image },
    `<div class="map-frame">
<canvas id="map" tabindex="0" role="img" aria-label="Map of the revealed world. Arrow keys pan, plus and minus zoom, 0 fits, Enter describes the centre tile." data-min-zoom="${WORLD_ZOOM_MIN}" data-max-zoom="${WORLD_ZOOM_MAX}"${asked} hidden></canvas>
<div class="map-tools" id="map-tools" hidden><button type="button" id="map-zoom-in" aria-label="Zoom in">+</button><button type="button" id="map-zoom-out" aria-label="Zoom out">&minus;</button><button type="button" id="map-fit">Fit</button></div>
<noscript><a href="${e(image)}"><img class="map-image" src="${e(image)}" width="${WORLD_IMAGE_WIDTH_PX}" height="${WORLD_IMAGE_HEIGHT_PX}" alt="${e(WORLD_IMAGE_ALT)}"></a></noscript>
<section id="tile-panel" class="tile-panel" aria-live="polite" hidden></section>
</div>
<p id="map-status" class="map-status" aria-live="polite" hidden>Loading the map…</p>
<p><a id="map-permalink" href="${e(here)}">Link to this view</a> · ${link('/world.png', 'the whole world as an image')}</p>
<noscript><p>Without JavaScript the map is an image drawn by the server, new on each reload; the busiest places below link to closer images.</p></noscript>
<p>The plane is 2048 x 2048 tiles. ${plural(view.members.length, 'member', 'members')}; ${view.chunks.length} of its 1,024 chunks hold revealed tiles; built so far: ${structuresSummary(view.structures)}. The map only watches: it reads the public world routes and refreshes every 15 seconds.</p>
<h2>Busiest places</h2>
${busiestList(view.members)}
<h2>How to look around</h2>
<p>Drag (one finger on a phone) to pan; scroll, pinch or use + and &minus; to zoom, from the whole plane down to single tiles; Fit shows everything revealed. Click or tap a tile to see its biome, height, top block, who discovered it and who stands there. On the focused map the arrow keys pan, + and - zoom, 0 fits and Enter describes the tile at the centre. The line under the map gives the coordinates and chunk under the pointer; the address bar and "Link to this view" always hold a link to what you see.</p>
${legend()}
<h2>Members</h2>
${membersList(view.members)}
<p>Plain text: ${link('/world.md', '/world.md')}. The same data as JSON: ${link('/api/v1/world/agents', 'members')}, ${link('/api/v1/world/structures', 'structures')}, ${link('/api/v1/world/revealed', 'revealed chunks')}.</p>
<script src="/assets/map.js" defer></script>`,
  );
}
