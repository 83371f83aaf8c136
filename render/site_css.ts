import { BASE_CSS } from './layout.js';
import { LEDGER_CSS } from './pages/ledger_pages.js';
import { WORLD_CSS } from './pages/world_page.js';
import { MOTION_CSS } from './pages/motion_page.js';
import { CHART_CSS } from './charts.js';
import { DISPATCH_CSS, MOTIONS_CSS } from './pages/governance_pages.js';
import { REPUTATION_CSS } from './pages/agent_pages.js';

/**
 * The one stylesheet, served from /assets/site.css so the pages need no inline style or
 * script: the shared rules first, then each page family's own, kept beside its renderer.
 */
export const SITE_CSS = [
  BASE_CSS,
  WORLD_CSS,
  LEDGER_CSS,
  MOTION_CSS,
  REPUTATION_CSS,
  DISPATCH_CSS,
  MOTIONS_CSS,
  CHART_CSS,
].join('\n');
