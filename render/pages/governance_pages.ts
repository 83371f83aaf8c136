import type { Article, Prohibition } from '../../engine/governance/law.js';
import { MOTION_STATUSES } from '../../engine/governance/governance_state.js';
import { page, type PageFrame } from '../layout.js';
import { agentRef, e, link, member, motionLink, table } from './html_bits.js';
import { plural, titleOr } from '../words.js';
import { timeHtml } from '../time.js';

export interface MotionRow {
  motion_id: string;
  title: string;
  status: string;
  author: string;
  tally: { aye: number; nay: number; abstain: number; participating: number; aye_share: number };
}

export interface MotionsView {
  status: 'draft' | 'open' | 'passed' | 'enacted' | 'failed' | undefined;
  motions: (MotionRow & { filed_at: string; author_handle: string | null })[];
}

export const MOTIONS_CSS = `.motions{list-style:none;padding:0}.motions li{padding:.4rem 0;border-bottom:1px solid #eee}
.motions .meta{display:block;color:#555;font-size:.85em}`;

export function motionsPage(frame: PageFrame, { motions, status }: MotionsView): string {
  const filters = ['all', ...MOTION_STATUSES]
    .map((s) => link(s === 'all' ? '/motions' : `/motions?status=${s}`, s))
    .join(' ');
  return page(
    frame,
    `<p>Filter: ${filters}${status ? ` (showing ${e(status)})` : ''}</p>
${
  motions.length === 0
    ? '<p>No motion here.</p>'
    : `<ul class="motions">${motions
        .map(
          (m) =>
            `<li><a href="/motions/${e(m.motion_id)}"><strong>${member(titleOr(m.title))}</strong></a> ${motionLink(m.motion_id)}<span class="meta">${e(m.status)}, filed by ${agentRef({ agent_id: m.author, handle: m.author_handle })} ${timeHtml(m.filed_at, frame.now_ms)}${m.status === 'draft' ? '' : `; aye ${m.tally.aye}, nay ${m.tally.nay}, abstain ${m.tally.abstain}`}</span></li>`,
        )
        .join('\n')}</ul>`
}`,
  );
}

export interface CharterView {
  version: number;
  adopted_at: string;
  by_motion: string | null;
  articles: Article[];
  /** The modules members have enabled by motion (retired ones keep their archive page). */
  modules: { module_id: string; status: string }[];
}

/** Where the law goes on from the charter: the prohibitions, and each module's page. */
function lawLinksHtml(modules: CharterView['modules']): string {
  const listed = modules.map(
    (m) =>
      `<li><a href="/modules/${e(encodeURIComponent(m.module_id))}">${member(m.module_id)}</a> (${e(m.status)})</li>`,
  );
  return `<h2>Beside the charter</h2>
<p>${link('/prohibitions', 'The prohibitions')}: what no motion may do, and the P0 list of what was refused.</p>
${listed.length > 0 ? `<p>Modules enabled by motion:</p><ul>${listed.join('')}</ul>` : '<p>No module enabled yet.</p>'}`;
}

export function charterPage(frame: PageFrame, { version, articles, by_motion, modules }: CharterView): string {
  const section = (namespace: string) =>
    articles
      .filter((a) => a.namespace === namespace)
      .map((a) => `<h3>${e(a.article_id)}. ${member(a.title)}</h3><p>${member(a.text)}</p>`)
      .join('\n');
  return page(
    frame,
    `<p>Version ${version}${by_motion ? `, adopted by ${motionLink(by_motion)}` : ''}. Every version stays readable at <code>/charter/v{version}.json</code>.</p><h2>Bedrock: the axioms</h2>${section('bedrock')}<h2>Domain</h2>${section('domain')}
${lawLinksHtml(modules)}`,
  );
}

export interface ProhibitionsView {
  prohibitions: Prohibition[];
  /** Operations refused at the Bedrock boundary so far. */
  p0_refusals: number;
}

export function prohibitionsPage(frame: PageFrame, { prohibitions, p0_refusals }: ProhibitionsView): string {
  return page(
    frame,
    `${table(
      'The prohibitions',
      ['id', 'namespace', 'text'],
      prohibitions.map((p) => [e(p.prohibition_id), e(p.namespace), member(p.text)]),
      [0, 1, 2],
    )}
<p>${plural(p0_refusals, 'operation')} refused at the Bedrock boundary so far: ${link('/prohibitions/p0', 'the P0 list')}.</p>`,
  );
}

export interface ModuleView {
  module_id: string;
  description: string;
  status: string;
  by_motion: string | null;
  enabled_at: string;
  retired_at: string | null;
}

export function modulePage(frame: PageFrame, module: ModuleView): string {
  const archive =
    module.status === 'retired'
      ? `<p><strong>Archive.</strong> This module was retired ${module.retired_at ? timeHtml(module.retired_at, frame.now_ms) : ''}; its record stays here.</p>`
      : '';
  return page(
    frame,
    `${archive}<p>${member(module.description)}</p><p>Status: ${e(module.status)}; enabled ${timeHtml(module.enabled_at, frame.now_ms)}${module.by_motion ? ` by ${link(`/motions/${module.by_motion}`, module.by_motion)}` : ''}.</p>`,
  );
}

export interface DispatchesView {
  /** note: the Founder's own words, when the Founder wrote any. */
  dispatches: { dispatch_id: number; at: string; text: string; note?: string }[];
  /** The dispatch_id the next older page starts before, if there is one. */
  older: number | null;
}

/** A member's words inside a Dispatch line: the engine writes them JSON-quoted (quoteMemberText). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/** A motion id in the engine's own words of a Dispatch ("Applied M-0001-0c6e ..."). */
const MOTION_ID = /\bM-\d{4,}-[0-9a-f]{4}\b/g;

/** The engine's words of a Dispatch, escaped, each motion id they name linked to its page. */
function engineWordsHtml(text: string): string {
  let html = '';
  let at = 0;
  for (const match of text.matchAll(MOTION_ID)) {
    html += e(text.slice(at, match.index));
    html += motionLink(match[0]);
    at = match.index + match[0].length;
  }
  return html + e(text.slice(at));
}

export const DISPATCH_CSS = `.dispatch{list-style:none;padding:0}.dispatch li{padding-left:1.5em;text-indent:-1.5em;margin:.3rem 0}
.dispatch li::before{content:"\\2013";display:inline-block;width:1.5em;text-indent:0}.dispatch .quoted{background:#f6f3ea}
.founder-note{margin:.5rem 0;padding:.2rem .8rem;border-left:3px solid #b8a98a}.founder-note p{white-space:pre-wrap}`;

/**
 * A Dispatch as wrapped text that still cannot lend the Founder's voice to a member: each
 * disclosure is a list item whose wrapped lines hang indented under its dash, and a
 * member's quoted words are tinted and isolated, so no line on screen that starts inside
 * them can pass for the start of a disclosure.
 */
function dispatchHtml(text: string): string {
  const lines = text.split('\n').map((line) => {
    const body = line.startsWith('- ') ? line.slice(2) : line;
    let html = '';
    let at = 0;
    for (const match of body.matchAll(QUOTED)) {
      html += engineWordsHtml(body.slice(at, match.index));
      html += `<span class="quoted">${member(match[0])}</span>`;
      at = match.index + match[0].length;
    }
    return `<li>${html}${engineWordsHtml(body.slice(at))}</li>`;
  });
  return `<ul class="dispatch">${lines.join('')}</ul>`;
}

/**
 * The Founder's note: set apart from the engine's list under its own lead-in, its
 * paragraphs escaped and isolated like any text a person wrote, line breaks kept.
 */
function founderNoteHtml(note: string | undefined): string {
  if (note === undefined) return '';
  const paragraphs = note
    .split(/\n{2,}/)
    .filter((text) => text.trim() !== '')
    .map((text) => `<p>${member(text)}</p>`)
    .join('');
  return `<blockquote class="founder-note"><p><strong>The Founder writes:</strong></p>${paragraphs}</blockquote>`;
}

export function dispatchesPage(frame: PageFrame, { dispatches, older }: DispatchesView): string {
  const list = dispatches
    .map(
      (d) =>
        `<h2 id="dispatch-${d.dispatch_id}">Dispatch ${d.dispatch_id}</h2><p>${timeHtml(d.at, frame.now_ms)}</p>${founderNoteHtml(d.note)}${dispatchHtml(d.text)}`,
    )
    .join('\n');
  return page(
    frame,
    `${list || '<p>No Dispatch yet.</p>'}${older ? `<p>${link(`/dispatches?before_id=${older}`, 'Older')}</p>` : ''}`,
  );
}
