import { plural } from '../words.js';
import { markdown, mdAgent, mdTable } from './blocks.js';
import type { WorldView } from '../pages/world_page.js';

export function worldMarkdown(view: WorldView): string {
  const built = view.structures;
  const members = view.members.map((member) => [
    mdAgent(member.name),
    member.x ?? 'unrevealed',
    member.y ?? 'unrevealed',
  ]);
  const masts = built.masts.map((mast) => [mast.relay_id, mast.x, mast.y, mast.builder]);
  const links = built.links.map((pair) => `${pair.from_relay_id}-${pair.to_relay_id}`).join(', ');
  const roads = built.roads.map((road) => `(${road.x}, ${road.y})`).join(', ');
  const cut = [built.truncated.masts ? 'masts' : '', built.truncated.roads ? 'roads' : ''].filter(Boolean);
  return markdown('The world', [
    `The plane is 2048 x 2048 tiles. ${plural(view.members.length, 'member')}; ${view.chunks.length} of its 1,024 chunks hold revealed tiles. The map is at /world.`,
    '',
    '## Members',
    '',
    members.length ? mdTable(['member', 'x', 'y'], members) : 'No members yet.',
    '',
    '## Structures',
    '',
    built.hub
      ? `The Aether Hub stands on mast ${built.hub.relay_id} at (${built.hub.x}, ${built.hub.y}).`
      : 'No Aether Hub yet.',
    '',
    masts.length ? mdTable(['relay mast', 'x', 'y', 'builder'], masts) : 'No relay masts yet.',
    '',
    `Links: ${links || 'none'}.`,
    '',
    `Road tiles (${built.roads.length}): ${roads || 'none'}.`,
    ...(cut.length
      ? ['', `Only the first of the ${cut.join(' and ')} are listed (the structures read caps them).`]
      : []),
    '',
    '## Revealed chunks',
    '',
    mdTable(
      ['chunk_x', 'chunk_y', 'revealed tiles'],
      view.chunks.map((c) => [c.chunk_x, c.chunk_y, c.revealed_tiles]),
    ),
  ]);
}
