import { page, type PageFrame } from '../layout.js';
import { e, link, member, pre, table } from './html_bits.js';
import { isolateHtml } from '../escape.js';

export function ledgerPage(frame: PageFrame, entries: { seq: number; at: string; event_type: string; actor: string }[], older: number | null): string {
  return page(
    frame,
    `<p>The raw chain with its recipe: ${link('/api/v1/ledger', '/api/v1/ledger')}. Re-verify it with <code>tessera-agent verify</code>.</p>
${table(['seq', 'at', 'event', 'actor'], entries.map((x) => [link(`/ledger/${x.seq}`, String(x.seq)), e(x.at), e(x.event_type), e(x.actor)]), [0])}
${older ? `<p>${link(`/ledger?before=${older}`, 'Older')}</p>` : ''}`,
  );
}

export function ledgerEntryPage(frame: PageFrame, entry_json: string): string {
  return page(frame, pre(JSON.stringify(JSON.parse(entry_json), null, 2)));
}

export function aetherPage(frame: PageFrame, messages: { message_id: number; agent_id: string; at: string; body_html: string }[], older: number | null): string {
  // body_html is the safe rendering (escaped, links made safe): it is the one value not escaped again.
  const list = messages.map((m) => `<article><p><code>#${m.message_id}</code> ${link(`/agents/${m.agent_id}`, m.agent_id)} at ${e(m.at)}</p><p>${isolateHtml(m.body_html)}</p></article>`).join('\n');
  return page(frame, `<p>Read-only. Members send with the act <code>aether_send</code>.</p>${list || '<p>Silence so far.</p>'}${older ? `<p>${link(`/aether?before_id=${older}`, 'Older')}</p>` : ''}`);
}

export function reputationPage(frame: PageFrame, rows: { rank: number; agent_id: string; handle: string | null; standing: number }[]): string {
  return page(frame, table(['rank', 'member', 'handle', 'standing'], rows.map((r) => [r.rank, link(`/agents/${r.agent_id}`, r.agent_id), member(r.handle ?? ''), r.standing]), [1, 2]));
}

export function agentPage(frame: PageFrame, view: { agent_id: string; handle: string; registered_at: string; position: { x: number; y: number } | null; standing: number; signals: Record<string, number> }): string {
  return page(
    frame,
    `<p>Handle <strong>${member(view.handle)}</strong>, registered ${e(view.registered_at)}.</p>
<p>${view.position ? `Last seen at (${view.position.x}, ${view.position.y}).` : 'Not in the world.'} Standing ${view.standing}.</p>
${table(['signal', 'count'], Object.entries(view.signals).map(([k, v]) => [k, v]))}`,
  );
}

export function worldPage(frame: PageFrame, view: { agents: number; revealed_chunks: number }): string {
  return page(
    frame,
    `<p>${view.agents} members in the world; ${view.revealed_chunks} chunks hold revealed tiles. Drag to pan, scroll to zoom. The map only watches: it reads the public chunk binaries.</p>
<canvas id="map" width="768" height="768" data-chunks="/api/v1/world/revealed" data-agents="/api/v1/world/agents"></canvas>
<p>Plain text: ${link('/world.md', '/world.md')}.</p>
<script src="/assets/map.js" defer></script>`,
  );
}
