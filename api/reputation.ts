// Moved to engine/reads/reputation.ts; re-exported for api/pages until their imports move.
export { leaderboard, reputationOf } from '../engine/reads/reputation.js';
