import type { Routes } from './routes.js';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { currentCharter } from '../engine/governance/governance_state.js';
import { FOUNDER_CONDUCT } from '../engine/governance/law.js';
import { isRefusal, findMotion, rollView, ayeShare } from '../engine/governance/motion_rules.js';
import { isoAt } from '../engine/time.js';
import type { LmdbStore } from '../engine/store/lmdb_store.js';
import { parseOrThrow, queryInt, queryLimit } from './parse.js';
import { RefusalError } from './refusal_error.js';
import { reputationOf, leaderboard } from './reputation.js';
import { railOf } from './pages/frame.js';

// Built once: a zod schema costs far more to build than to run.
const DispatchesQuery = z.object({ limit: queryLimit(30, 200) });
const ChronicleQuery = z.object({ before: queryInt.optional(), limit: queryLimit(50, 500) });
const LeaderboardQuery = z.object({ limit: queryLimit(100, 1000) });

interface GovernanceDeps {
  engine: Engine;
  store: LmdbStore;
  clock: () => number;
  /** This service's public address: the feed links there, never to whatever Host a request names. */
  public_url: string;
}

/** The public reads of governance and law. */
export function mountGovernanceRoutes(router: Routes, { engine, store, clock, public_url }: GovernanceDeps): void {
  const governance = () => engine.state.governance;
  const motionOr404 = (motion_id: string) => {
    const motion = findMotion(engine.state, motion_id);
    if (isRefusal(motion)) throw new RefusalError(motion);
    return motion;
  };

  router.get('/api/v1/motions/:motion_id/votes', (ctx) => {
    const motion = motionOr404(ctx.params.motion_id!);
    ctx.body = { motion_id: motion.motion_id, roll: rollView(motion) };
  });

  router.get('/api/v1/motions/:motion_id/tally', (ctx) => {
    const motion = motionOr404(ctx.params.motion_id!);
    ctx.body = { motion_id: motion.motion_id, status: motion.status, ...motion.tally, aye_share: ayeShare(motion.tally) };
  });

  router.get('/enactment/queue', (ctx) => {
    const queue = Object.values(governance().motions)
      .filter((motion) => motion.status === 'passed')
      .map((motion) => ({ motion_id: motion.motion_id, status: motion.status, title: motion.title, changes: motion.changes }));
    ctx.body = { queue };
  });

  router.get('/api/v1/dispatches', (ctx) => {
    const { limit } = parseOrThrow(DispatchesQuery, ctx.query, ['query']);
    ctx.body = { dispatches: [...governance().dispatches].reverse().slice(0, limit).map((d) => ({ dispatch_id: d.dispatch_id, at: isoAt(d.at_ms), text: d.text, items: d.items.length })) };
  });

  router.get('/api/v1/bulletin', (ctx) => {
    ctx.body = { items: [...governance().bulletin].reverse().map((item) => ({ bulletin_id: item.bulletin_id, agent_id: item.agent_id, at: isoAt(item.at_ms), title: item.title, body: item.body })) };
  });

  router.get('/api/v1/chronicle', (ctx) => {
    const { before, limit } = parseOrThrow(ChronicleQuery, ctx.query, ['query']);
    const items = governance().chronicle.filter((item) => before === undefined || item.chronicle_id < before);
    ctx.body = { items: items.slice(-limit).reverse().map((item) => ({ chronicle_id: item.chronicle_id, at: isoAt(item.at_ms), kind: item.kind, text: item.text })) };
  });

  router.get('/api/v1/standing', (ctx) => {
    ctx.body = railOf(engine, store);
  });

  router.get('/api/v1/reputation', (ctx) => {
    const { limit } = parseOrThrow(LeaderboardQuery, ctx.query, ['query']);
    ctx.body = { leaderboard: leaderboard(engine.state, limit) };
  });

  router.get('/api/v1/reputation/:agent', (ctx) => {
    const profile = reputationOf(engine.state, ctx.params.agent!);
    if (!profile) throw RefusalError.of('UNKNOWN_AGENT', `No member ${ctx.params.agent}.`);
    ctx.body = profile;
  });

  const charterJson = (version: number) => {
    const charter = governance().charter[version - 1];
    if (!charter) throw RefusalError.of('NOT_FOUND', `There is no charter version ${version}; the current one is ${currentCharter(governance()).version}.`);
    return { version: charter.version, adopted_at: isoAt(charter.adopted_at_ms), by_motion: charter.by_motion, articles: charter.articles };
  };
  router.get('/charter.json', (ctx) => {
    ctx.body = charterJson(currentCharter(governance()).version);
  });
  router.get('/charter/:file', (ctx) => {
    const match = /^v(\d{1,6})\.json$/.exec(ctx.params.file!);
    if (!match) throw RefusalError.of('NOT_FOUND', 'Charter versions are at /charter/v{version}.json.');
    const version = Number(match[1]);
    ctx.body = charterJson(version);
    // A superseded version never changes again.
    if (version < currentCharter(governance()).version) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  });

  router.get('/prohibitions.json', (ctx) => {
    ctx.body = { prohibitions: governance().prohibitions };
  });
  router.get('/prohibitions/p0', (ctx) => {
    ctx.body = { refusals: governance().p0.map(({ at_ms, ...record }) => ({ ...record, at: isoAt(at_ms) })) };
  });

  const conduct = (ctx: { body: unknown }) => {
    ctx.body = FOUNDER_CONDUCT;
  };
  router.get('/founder-conduct', conduct);
  router.get('/api/v1/founder-conduct', conduct);
}
