import { z } from 'zod';
import type { NavLink, PageFrame } from '../../render/layout.js';
import {
  charterMarkdown,
  dispatchesMarkdown,
  motionsMarkdown,
  prohibitionsMarkdown,
} from '../../render/markdown/governance_markdown.js';
import { aetherMarkdown } from '../../render/markdown/aether_markdown.js';
import { agentMarkdown, reputationMarkdown } from '../../render/markdown/agent_markdown.js';
import { ledgerEntryMarkdown, ledgerMarkdown } from '../../render/markdown/ledger_markdown.js';
import { motionMarkdown } from '../../render/markdown/motion_markdown.js';
import { worldMarkdown } from '../../render/markdown/world_markdown.js';
import { healthMarkdown, societyMarkdown, treasuryMarkdown } from '../../render/markdown/society_markdown.js';
import {
  charterPage,
  dispatchesPage,
  modulePage,
  motionsPage,
  prohibitionsPage,
} from '../../render/pages/governance_pages.js';
import { aetherPage } from '../../render/pages/aether_page.js';
import { agentPage, reputationPage } from '../../render/pages/agent_pages.js';
import { ledgerEntryPage, ledgerPage } from '../../render/pages/ledger_pages.js';
import { MOTION_FRAGMENTS, MOTION_FRAGMENT_WORDS, motionPage } from '../../render/pages/motion_page.js';
import { worldPage } from '../../render/pages/world_page.js';
import { WORLD_ZOOM_MAX, WORLD_ZOOM_MIN } from '../../render/map/zoom.js';
import { forAgentsPage, healthPage, homePage, societyPage } from '../../render/pages/society_pages.js';
import { treasuryPage } from '../../render/treasury_pages.js';
import * as views from './page_views.js';
import { titleOr } from '../../render/words.js';
import { type ReadContext, MotionStatusSchema, type SocietyState } from '../../engine/index.js';

/**
 * A human page, declared once. Its HTML route, its Markdown twin (`path` + `.md`, when it
 * has a Markdown renderer), its nav link, and its lines in the sitemap and llms.txt all
 * follow from this. Both renderings show the same view, computed once per request.
 */
export interface PageDefinition<V = unknown, A = Record<string, unknown>> {
  /** The HTML page's route; `{name}` marks a path parameter (at most one, last). */
  path: string;
  /** What the page is called in the nav, llms.txt, and its heading unless `heading` names it. */
  title: string;
  /** One line on what the page shows: its OpenAPI summary. */
  summary: string;
  /** The heading of a page that shows one thing (a motion, an agent), from its view. */
  heading?: (view: V) => string;
  /** Its label in the nav on every page; pages without one are not in the nav. */
  nav?: string;
  /** Listed in the sitemap and llms.txt (a page with a path parameter is listed through `instances`). */
  listed: boolean;
  /** For a page with a path parameter: every value it takes, for the sitemap. */
  instances?: (state: Readonly<SocietyState>) => Iterable<string>;
  /**
   * The path parameter and the query the page reads, typed as a read's are (integers as
   * z.int) and parsed by the same parser before the view runs: a path value that does not
   * fit names nothing (404 page); a bad query value is 422.
   */
  args?: z.ZodObject;
  /** What the page shows (the parsed `args`), or null: nothing by that path. */
  view: (context: ReadContext, args: A) => V | null;
  /** Where the page sends a request instead of answering it (303), or null to answer; checked before the view. */
  redirect?: (context: ReadContext, args: A) => string | null;
  /**
   * For a page without args whose HTML (all but the watchers line) follows from the state
   * between ticks and the ledger's head alone, never from the time of the request: when this
   * says so of its view, the rendered page is kept until the state or the head moves
   * (api/pages/state_pages.ts). A page that shows a relative time must not have it.
   */
  keep_while_state?: (view: V) => boolean;
  /** The 404 page's sentence, for a page whose view can answer null. */
  missing?: string;
  html: (frame: PageFrame, view: V) => string;
  /** The Markdown twin; `now_ms` is when the page is made, for relative times. */
  markdown?: (view: V, now_ms: number) => string;
}

/** Checks each declaration against its own view's type, then keeps it among the others. */
function definePage<V, A>(page: PageDefinition<V, A>): PageDefinition {
  return page as unknown as PageDefinition;
}

const static_view = () => ({});

/** A query value left empty (`?fragment=`) reads as one not given. */
const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value);

/** Every human page, in nav order. */
export const PAGE_CATALOGUE: readonly PageDefinition[] = [
  definePage({
    path: '/',
    title: 'Home',
    summary: 'The front page',
    heading: (view) => view.society_name,
    nav: 'Home',
    listed: true,
    view: views.societyView,
    // Kept once the vitals have folded the whole ledger: until then each request folds more.
    keep_while_state: (view) => view.vitals.counting === null,
    html: homePage,
  }),
  definePage({
    path: '/society',
    title: 'The society',
    summary: 'The society: members, law, ledger head',
    nav: 'Society',
    listed: true,
    view: views.societyView,
    html: societyPage,
    markdown: societyMarkdown,
  }),
  definePage({
    path: '/world',
    title: 'The world',
    summary: 'The world viewer: the revealed plane, members, structures; a view by x, y and zoom level z',
    nav: 'World',
    listed: true,
    // The permalink of a view: its centre tile and zoom level (2^z CSS px per tile).
    args: z.object({
      x: z.int().min(0).max(2047).optional(),
      y: z.int().min(0).max(2047).optional(),
      z: z.int().min(WORLD_ZOOM_MIN).max(WORLD_ZOOM_MAX).optional(),
    }),
    view: views.worldView,
    html: worldPage,
    markdown: worldMarkdown,
  }),
  definePage({
    path: '/motions',
    title: 'Motions',
    summary: 'Motions, optionally by status',
    nav: 'Motions',
    listed: true,
    args: z.object({ status: MotionStatusSchema.optional() }),
    view: views.motionsView,
    html: motionsPage,
    markdown: motionsMarkdown,
  }),
  definePage({
    path: '/motions/{motion_id}',
    title: 'Motion',
    summary: 'A motion with its tally and roll',
    args: z.object({
      motion_id: z.string(),
      // Empty is the whole motion, as absent is: not an enum value, so a refusal lists only the parts.
      fragment: z
        .preprocess(emptyAsAbsent, z.enum(MOTION_FRAGMENTS).optional())
        .describe(
          `Show only this part of the motion: ${MOTION_FRAGMENTS.map((name) => `${name} (${MOTION_FRAGMENT_WORDS[name]})`).join(', ')}. Absent or empty: the whole motion`,
        ),
    }),
    heading: (view) => titleOr(view.title, 'Untitled motion'),
    listed: false,
    instances: (state) => Object.keys(state.governance.motions),
    view: views.motionDetailView,
    missing: 'There is no motion by that id.',
    html: motionPage,
    markdown: motionMarkdown,
  }),
  definePage({
    path: '/charter',
    title: 'Charter',
    summary: 'The charter in force',
    nav: 'Charter',
    listed: true,
    view: views.charterView,
    html: charterPage,
    markdown: charterMarkdown,
  }),
  definePage({
    path: '/prohibitions',
    title: 'Prohibitions',
    summary: 'The prohibitions and the P0 list',
    listed: true,
    view: views.prohibitionsView,
    html: prohibitionsPage,
    markdown: prohibitionsMarkdown,
  }),
  definePage({
    path: '/modules/{module_id}',
    title: 'Module',
    summary: 'A module, enabled or retired (a retired one shows its archive)',
    args: z.object({ module_id: z.string() }),
    heading: (view) => `Module ${view.module_id}`,
    listed: false,
    view: views.moduleView,
    missing: 'There is no module by that id.',
    html: modulePage,
  }),
  definePage({
    path: '/aether',
    title: 'The Aether',
    summary: 'The Aether, read-only, newest first',
    nav: 'Aether',
    listed: true,
    args: z.object({ before_id: z.int().min(0).optional() }),
    view: views.aetherView,
    html: aetherPage,
    markdown: aetherMarkdown,
  }),
  definePage({
    path: '/dispatches',
    title: 'Dispatches',
    summary: 'Dispatches, newest first',
    nav: 'Dispatches',
    listed: true,
    args: z.object({ before_id: z.int().min(0).optional() }),
    view: views.dispatchesView,
    html: dispatchesPage,
    markdown: dispatchesMarkdown,
  }),
  definePage({
    path: '/reputation',
    title: 'Reputation',
    summary: 'Members by standing',
    nav: 'Reputation',
    listed: true,
    view: views.reputationView,
    html: reputationPage,
    markdown: reputationMarkdown,
  }),
  definePage({
    path: '/agents/{agent_id}',
    title: 'Agent',
    summary: 'An agent: handle, role, position, standing, holdings and recent activity',
    args: z.object({ agent_id: z.string() }),
    heading: (view) => `Agent ${view.handle}`,
    listed: false,
    instances: (state) => state.agents.keys(),
    view: views.agentView,
    missing: 'There is no agent by that id.',
    html: agentPage,
    markdown: agentMarkdown,
  }),
  definePage({
    path: '/ledger',
    title: 'Ledger',
    summary: 'The ledger, newest first',
    nav: 'Ledger',
    listed: true,
    args: z.object({
      before: z.int().min(0).optional().describe('Entries before this seq'),
      after: z.int().min(0).optional().describe('Entries after this seq (the newer page)'),
      type: z
        .string()
        .regex(/^[a-z0-9_]{1,64}$/, 'must be an event type')
        .optional()
        .describe('Only entries of this event type'),
      actor: z.string().min(1).max(128).optional().describe('Only entries whose actor is this agent id (or system)'),
      motion: z
        .string()
        .regex(/^M-\d{4,}-[0-9a-f]{4}$/, 'must be a motion id')
        .optional()
        .describe('Only entries about this motion'),
      q: z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be an agent's handle or id, an event type, a motion id or an entry's seq")
        .optional()
        .describe("The search box: an agent's handle or id, an event type, a motion id, or a seq"),
      bookkeeping: z.enum(['shown', 'hidden']).optional().describe('Show the bookkeeping entries (hidden by default)'),
    }),
    view: views.ledgerView,
    redirect: views.ledgerSearchRedirect,
    html: ledgerPage,
    markdown: ledgerMarkdown,
  }),
  definePage({
    path: '/ledger/{seq}',
    title: 'Ledger entry',
    summary: 'One ledger entry',
    args: z.object({ seq: z.int().min(1) }),
    heading: (view) => `Ledger entry ${view.seq}`,
    listed: false,
    view: views.ledgerEntryView,
    missing: 'There is no entry at that seq.',
    html: ledgerEntryPage,
    markdown: ledgerEntryMarkdown,
  }),
  definePage({
    path: '/treasury',
    title: 'Treasury',
    summary: 'The treasury: payments, memberships, the observer offer',
    nav: 'Treasury',
    listed: true,
    view: views.treasuryView,
    html: treasuryPage,
    markdown: treasuryMarkdown,
  }),
  definePage({
    path: '/for-agents',
    title: 'For agents',
    summary: 'How an agent joins and acts',
    nav: 'For agents',
    listed: true,
    view: static_view,
    html: forAgentsPage,
  }),
  definePage({
    path: '/health-page',
    title: 'Health',
    summary: "The service's health, for people",
    listed: true,
    view: views.healthView,
    html: healthPage,
    markdown: healthMarkdown,
  }),
];

/** The nav on every page, from the catalogue. */
export const NAV_LINKS: readonly NavLink[] = PAGE_CATALOGUE.filter((page) => page.nav).map((page) => ({
  href: page.path,
  label: page.nav!,
}));

/** A page's Markdown twin, if it has one. */
export function markdownTwin(page: PageDefinition): string | undefined {
  return page.markdown ? `${page.path}.md` : undefined;
}

export function listedPages(): PageDefinition[] {
  return PAGE_CATALOGUE.filter((page) => page.listed);
}

/** The sitemap's paths: each listed page and its twin, then each page a parameter names. */
export function sitemapPaths(state: Readonly<SocietyState>): string[] {
  const listed = listedPages();
  const paths = [...listed.map((page) => page.path), ...listed.flatMap((page) => markdownTwin(page) ?? [])];
  for (const page of PAGE_CATALOGUE) {
    for (const value of page.instances?.(state) ?? []) paths.push(page.path.replace(/\{\w+\}/, value));
  }
  return paths;
}
