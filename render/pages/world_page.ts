import { page, type PageFrame } from '../layout.js';
import { link } from './html_bits.js';

export interface WorldView {
  /** Members standing in the world. */
  agents: number;
  chunks: { chunk_x: number; chunk_y: number; revealed_tiles: number }[];
}

export function worldPage(frame: PageFrame, view: WorldView): string {
  return page(
    frame,
    `<p>${view.agents} members in the world; ${view.chunks.length} chunks hold revealed tiles. Drag to pan, scroll to zoom. The map only watches: it reads the public chunk binaries.</p>
<canvas id="map" width="768" height="768" data-chunks="/api/v1/world/revealed" data-agents="/api/v1/world/agents"></canvas>
<p>Plain text: ${link('/world.md', '/world.md')}.</p>
<script src="/assets/map.js" defer></script>`,
  );
}
