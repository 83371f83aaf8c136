import type { Routes } from './routes.js';
import { z } from 'zod';
import { AGENT_ID_PATTERN } from '../engine/identity.js';
import type { Engine } from '../engine/engine.js';
import type { LmdbStore } from '../engine/store/lmdb_store.js';
import { isoAt } from '../engine/time.js';
import { agentRules } from './agent_rules.js';
import type { NonceBook } from './nonces.js';
import { nonceLimit, type NonceLimits } from './read_limiter.js';
import { LedgerPages } from './ledger_pages.js';
import { parseOrThrow, queryInt, queryLimit } from './parse.js';

export const ledger_page_max = 1000;

const NonceQuery = z.object({ agent: z.string().regex(AGENT_ID_PATTERN, 'must be an agent id: ag_ followed by 16 lowercase hex digits') });

const LedgerQuery = z.object({
  from: queryInt.pipe(z.int().min(1)).default(1),
  limit: queryLimit(500, ledger_page_max),
});

interface ReadDeps {
  engine: Engine;
  store: LmdbStore;
  nonces: NonceBook;
  nonce_limits: NonceLimits;
  started_at_ms: number;
  clock: () => number;
}

export function mountReadRoutes(router: Routes, deps: ReadDeps): void {
  const { engine, store, nonces } = deps;

  router.get('/.well-known/agent-rules.json', (ctx) => {
    ctx.body = agentRules(engine.state.params);
  });

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok', ledger_seq: store.ledgerHead().seq };
  });

  const nonce_limit = nonceLimit(deps.nonce_limits, deps.clock);
  router.get('/api/v1/nonce', (ctx) => {
    nonce_limit.check(ctx.ip);
    const { agent } = parseOrThrow(NonceQuery, ctx.query, ['query']);
    const issued = nonces.issue(agent);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { agent: issued.agent, nonce: issued.nonce, expires_at: isoAt(issued.expires_at_ms) };
  });

  const ledger_pages = new LedgerPages(store);
  router.get('/api/v1/ledger', (ctx) => {
    const { from, limit } = parseOrThrow(LedgerQuery, ctx.query, ['query']);
    const { body, full } = ledger_pages.page(from, limit);
    // A page that ends below the head is full and final: entries are never rewritten.
    if (full) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = 'application/json';
    ctx.body = body;
  });
}
