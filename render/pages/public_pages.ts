import { page, type PageFrame } from '../layout.js';
import { e, link, member, pre, table } from './html_bits.js';
import { isolateHtml } from '../escape.js';
import { messageHtml } from '../message_html.js';

export interface LedgerView {
  head: { seq: number; hash: string };
  /** Newest first. */
  entries: { seq: number; at: string; event_type: string; actor: string }[];
  /** The seq the next older page ends before, if there is one. */
  older: number | null;
}

export function ledgerPage(frame: PageFrame, { entries, older }: LedgerView): string {
  return page(
    frame,
    `<p>The raw chain with its recipe: ${link('/api/v1/ledger', '/api/v1/ledger')}. Re-verify it with <code>tessera-agent verify</code>.</p>
${table(
  ['seq', 'at', 'event', 'actor'],
  entries.map((x) => [link(`/ledger/${x.seq}`, String(x.seq)), e(x.at), e(x.event_type), e(x.actor)]),
  [0],
)}
${older ? `<p>${link(`/ledger?before=${older}`, 'Older')}</p>` : ''}`,
  );
}

export interface LedgerEntryView {
  seq: number;
  /** The entry exactly as stored. */
  json: string;
}

export function ledgerEntryPage(frame: PageFrame, { json }: LedgerEntryView): string {
  return page(frame, pre(JSON.stringify(JSON.parse(json), null, 2)));
}

export interface AetherView {
  /** Published messages, newest first. */
  messages: { message_id: number; agent_id: string; at: string; body: string }[];
  /** The message_id the next older page starts before, if there is one. */
  older: number | null;
}

export function aetherPage(frame: PageFrame, { messages, older }: AetherView): string {
  // messageHtml is the safe rendering (escaped, links made safe): it is the one value not escaped again.
  const list = messages
    .map(
      (m) =>
        `<article><p><code>#${m.message_id}</code> ${link(`/agents/${m.agent_id}`, m.agent_id)} at ${e(m.at)}</p><p>${isolateHtml(messageHtml(m.body))}</p></article>`,
    )
    .join('\n');
  return page(
    frame,
    `<p>Read-only. Members send with the act <code>aether_send</code>.</p>${list || '<p>Silence so far.</p>'}${older ? `<p>${link(`/aether?before_id=${older}`, 'Older')}</p>` : ''}`,
  );
}

export interface ReputationView {
  leaderboard: { rank: number; agent_id: string; handle: string | null; standing: number }[];
}

export function reputationPage(frame: PageFrame, { leaderboard }: ReputationView): string {
  return page(
    frame,
    table(
      ['rank', 'member', 'handle', 'standing'],
      leaderboard.map((r) => [r.rank, link(`/agents/${r.agent_id}`, r.agent_id), member(r.handle ?? ''), r.standing]),
      [1, 2],
    ),
  );
}

export interface AgentView {
  agent_id: string;
  handle: string;
  registered_at: string;
  position: { x: number; y: number } | null;
  standing: number;
  signals: Record<string, number>;
}

export function agentPage(frame: PageFrame, view: AgentView): string {
  return page(
    frame,
    `<p>Handle <strong>${member(view.handle)}</strong>, registered ${e(view.registered_at)}.</p>
<p>${view.position ? `Last seen at (${view.position.x}, ${view.position.y}).` : 'Not in the world.'} Standing ${view.standing}.</p>
${table(
  ['signal', 'count'],
  Object.entries(view.signals).map(([k, v]) => [k, v]),
)}`,
  );
}

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
