import { markdown, mdTable } from './blocks.js';
import type { WorldView } from '../pages/world_page.js';

export function worldMarkdown(view: WorldView): string {
  const rows = view.chunks.map((c) => [c.chunk_x, c.chunk_y, c.revealed_tiles]);
  return markdown('The world', [
    `${view.agents} members in the world; ${view.chunks.length} chunks hold revealed tiles.`,
    '',
    mdTable(['chunk_x', 'chunk_y', 'revealed tiles'], rows),
  ]);
}
