/*
 * What each human page shows, computed once per request and rendered as HTML or as
 * Markdown from the same value: one small function per page, in views/ by page family.
 * A view answers null when its path names nothing (the page is then a 404).
 */
export * from './views/names.js';
export * from './views/society.js';
export * from './views/governance.js';
export * from './views/motion.js';
export * from './views/ledger.js';
export * from './views/aether.js';
export * from './views/agents.js';
export * from './views/world.js';
