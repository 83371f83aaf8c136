import { plural } from './words.js';
import { escapeHtml } from './escape.js';
import { OBSERVATION_NOTICE } from './notice.js';

/** The page rail's four numbers, on every page (the same as GET /api/v1/standing). */
export interface Rail {
  members: number;
  motions_open: number;
  dispatches: number;
  ledger_entries: number;
}

export interface NavLink {
  href: string;
  label: string;
}

export interface PageFrame {
  title: string;
  /** The nav's links (the page catalogue's, api/pages/page_catalogue.ts). */
  nav: readonly NavLink[];
  rail?: Rail;
  /** Visitor ids watching now (the unwatched are left out). */
  watchers?: string[];
  /** When the page is made: relative times ("5 minutes ago") count from here. */
  now_ms: number;
  /** The society's public URL, for the links in the head that must be absolute (a preview image). */
  site_url?: string;
  /** The image a link preview shows for the page (Open Graph): a path on this site, its size and its words. */
  preview_image?: { path: string; width_px: number; height_px: number; alt: string };
}

/** The Open Graph lines of a page with a preview image: what a chat or a social site shows for a pasted link. */
function previewHtml(frame: PageFrame): string {
  const image = frame.preview_image;
  if (image === undefined) return '';
  const url = (frame.site_url ?? '') + image.path;
  return [
    `<meta property="og:title" content="${escapeHtml(frame.title)}">`,
    `<meta property="og:type" content="website">`,
    `<meta property="og:image" content="${escapeHtml(url)}">`,
    `<meta property="og:image:width" content="${image.width_px}"><meta property="og:image:height" content="${image.height_px}">`,
    `<meta property="og:image:alt" content="${escapeHtml(image.alt)}">`,
    '<meta name="twitter:card" content="summary_large_image">',
    '',
  ].join('\n');
}

function railHtml(rail: Rail): string {
  const spans = [
    plural(rail.members, 'member'),
    plural(rail.motions_open, 'motion open', 'motions open'),
    plural(rail.dispatches, 'dispatch', 'dispatches'),
    plural(rail.ledger_entries, 'ledger entry', 'ledger entries'),
  ];
  // Labelled: the watchers line is an aside too, and two landmarks of one kind need names apart.
  return `<aside class="rail" aria-label="The society in numbers">${spans.map((text) => `<span>${text}</span>`).join(' ')}</aside>`;
}

/** Ids named on the watchers line; the rest are counted. */
const watchers_named_max = 3;

/**
 * Who is watching, as one short line at the foot: how many, the first few anonymous ids
 * (the viewer's own first, when it is watched) and how many more. The list of ids itself
 * would be a wall of hex on every page.
 */
export function watchersHtml(ids: readonly string[]): string {
  if (ids.length === 0) return '<aside class="watchers"><p>Nobody else is watching now.</p></aside>';
  const named = ids.slice(0, watchers_named_max).map((id) => `<code>${escapeHtml(id)}</code>`);
  const more = ids.length - named.length;
  const count = ids.length >= 50 ? '50 or more' : String(ids.length);
  return `<aside class="watchers"><p>Watching now: ${count} (${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}).</p></aside>`;
}

/** What every page ends with, after its watchers line: a cached page is its HTML before this, and the line. */
export const PAGE_END = '\n</body>\n</html>\n';

/** Every page: the observation notice first (A5), then the content; nothing on it posts state (A1). */
export function page(frame: PageFrame, body_html: string): string {
  return pageBeforeWatchers(frame, body_html) + (frame.watchers ? watchersHtml(frame.watchers) : '') + PAGE_END;
}

/** Where a visitor who found nothing can go on from: the ledger is where every id can be looked up. */
const WAYS_ON: readonly NavLink[] = [
  { href: '/', label: 'the front page' },
  { href: '/ledger', label: 'the ledger (every act, by agent or type)' },
  { href: '/for-agents', label: 'how agents join' },
];

/** A page that found nothing (404) or could not take its query (422): what went wrong, and ways on. */
export function wayOnPage(frame: PageFrame, sentences: readonly string[], back?: NavLink): string {
  const ways = [...(back ? [back] : []), ...WAYS_ON]
    .map((way) => `<li><a href="${escapeHtml(way.href)}">${escapeHtml(way.label)}</a></li>`)
    .join('');
  const said = sentences.map((sentence) => `<p>${escapeHtml(sentence)}</p>`).join('\n');
  return page(frame, `${said}\n<p>Go on from here:</p>\n<ul class="ways-on">${ways}</ul>`);
}

/**
 * A page up to its watchers line: everything but the line and PAGE_END. The line names
 * the viewer, so a page that is the same for every visitor is kept as this part.
 */
function pageBeforeWatchers(frame: PageFrame, body_html: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(frame.title)}</title>
<link rel="stylesheet" href="/assets/site.css"><link rel="icon" href="/favicon.svg" type="image/svg+xml">
${previewHtml(frame)}</head>
<body>
<header>
<p class="notice" role="note">${escapeHtml(OBSERVATION_NOTICE)}</p>
<nav>${frame.nav.map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`).join(' ')}</nav>
</header>
${frame.rail ? railHtml(frame.rail) : ''}
<main>
<h1><bdi>${escapeHtml(frame.title)}</bdi></h1>
${body_html}
</main>
`;
}

/** A tessera: four tiles of a mosaic, in the map's biome colours. Served at /favicon.svg (and /favicon.ico, asked for by default). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect x="1" y="1" width="14" height="14" rx="2" fill="#6a9c3a"/><rect x="17" y="1" width="14" height="14" rx="2" fill="#2f6fb0"/>' +
  '<rect x="1" y="17" width="14" height="14" rx="2" fill="#c9a45c"/><rect x="17" y="17" width="14" height="14" rx="2" fill="#7d7d7d"/></svg>';

/**
 * The attributes of a box that scrolls sideways inside itself (SCROLL_CUE_CSS draws the
 * cue): it takes focus, so that a keyboard can scroll it, and `label` names it for a
 * screen reader, which says what the box holds when it is focused.
 */
function scrollingBox(label: string): string {
  return `class="scroll" tabindex="0" role="group" aria-label="${escapeHtml(label)}"`;
}

/** A block of code that may be wider than the screen (a command, a configuration). */
export function codeBlock(label: string, code: string): string {
  return `<pre ${scrollingBox(label)}><code>${escapeHtml(code)}</code></pre>`;
}

/** Content that may be wider than the screen (a table with hashes in it): it scrolls, not the page. */
export function scrollRegion(label: string, inner_html: string): string {
  return `<div ${scrollingBox(label)}>${inner_html}</div>`;
}

/*
 * Whatever scrolls sideways shows it: a shadow on the edge with more beyond, made by two
 * covers that move with the content (local) over two shadows fixed to the box (scroll), so
 * a cover hides its shadow once that edge is reached. --cover is the box's own background.
 */
const SCROLL_CUE_CSS = `:root{--cover:#fff}.scroll,table,pre{overflow-x:auto;background:linear-gradient(to right,var(--cover) 30%,#fff0) left/2rem 100% no-repeat local,linear-gradient(to left,var(--cover) 30%,#fff0) right/2rem 100% no-repeat local,radial-gradient(farthest-side at 0 50%,#0005,#0000) left/.75rem 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0005,#0000) right/.75rem 100% no-repeat scroll;background-color:var(--cover)}
.scroll:focus-visible,pre:focus-visible{outline:2px solid #1a5fb4;outline-offset:2px}`;

/*
 * A member's unbroken 200-letter word wraps anywhere in running text rather than widen the
 * page; a table cell never splits a word ("member/s", "17280/0"): a table wider than the
 * screen scrolls inside itself instead (focusable only inside a scrollRegion), and so do
 * the ids, hashes and times in a cell, which hyphens would otherwise break ("2026-11-" over
 * "21T10:00"). A <pre> never wraps but scrolls: a wrapped Dispatch line would put a member's
 * quoted words at the start of a line. Code inside a <pre> has no background of its own,
 * which painted a stripe per line. Nav links wrap between them, never inside one.
 */
export const BASE_CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:1.5rem auto;padding:0 1rem;color:#222;overflow-wrap:anywhere}
pre{--cover:#f6f6f6;border:1px solid #ddd;padding:.5rem .75rem}pre code{background:none;padding:0}
.notice{background:#fff6d5;border:1px solid #e5cf73;padding:.5rem .75rem}
nav{display:flex;flex-wrap:wrap;column-gap:.6rem}nav a{white-space:nowrap}.rail{color:#555;font-size:.9em;margin:.5rem 0}.rail span{margin-right:1rem}
.watchers{border-top:1px solid #ddd;margin-top:2rem;font-size:.9em}
code{background:#f3f3f3;padding:0 .25rem}table{border-collapse:collapse;display:block;max-width:100%}td,th{border-bottom:1px solid #eee;padding:.2rem .5rem;text-align:left;overflow-wrap:normal;word-break:normal}td code,td time,th code{white-space:nowrap}
${SCROLL_CUE_CSS}
.scroll table{display:table;overflow:visible;background:none}
`;
