import { markdown, mdQuote, mdTable } from './blocks.js';
import type { AetherView, LedgerView, ReputationView, WorldView } from '../pages/public_pages.js';

export function worldMarkdown(view: WorldView): string {
  const rows = view.chunks.map((c) => [c.chunk_x, c.chunk_y, c.revealed_tiles]);
  return markdown('The world', [
    `${view.agents} members in the world; ${view.chunks.length} chunks hold revealed tiles.`,
    '',
    mdTable(['chunk_x', 'chunk_y', 'revealed tiles'], rows),
  ]);
}

export function reputationMarkdown({ leaderboard }: ReputationView): string {
  const rows = leaderboard.map((r) => [r.rank, r.agent_id, r.handle ?? '', r.standing]);
  return markdown('Reputation', [mdTable(['rank', 'member', 'handle', 'standing'], rows)]);
}

/** Each message a blockquote, each of its lines escaped after the `> `. */
export function aetherMarkdown({ messages, older }: AetherView): string {
  if (messages.length === 0) return markdown('The Aether', ['Silence so far.']);
  const list = messages.flatMap((m) => [`**#${m.message_id}** ${m.agent_id} at ${m.at}`, '', mdQuote(m.body), '']);
  return markdown('The Aether', [...list, ...(older ? [`Older: /aether.md?before_id=${older}`] : [])]);
}

export function ledgerMarkdown({ head, entries, older }: LedgerView): string {
  return markdown('Ledger', [
    `Head: seq ${head.seq}, hash \`${head.hash}\`. The raw chain and its recipe: /api/v1/ledger.`,
    '',
    mdTable(
      ['seq', 'at', 'event', 'actor'],
      entries.map((x) => [x.seq, x.at, x.event_type, x.actor]),
    ),
    ...(older ? ['', `Older: /ledger.md?before=${older}`] : []),
  ]);
}
