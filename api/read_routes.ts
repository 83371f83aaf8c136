import type { Routes } from './routes.js';
import { z } from 'zod';
import { agentRules } from './agent_rules.js';
import type { NonceBook } from './nonces.js';
import { nonceLimit, type NonceLimits } from './read_limiter.js';
import type { LedgerPages } from './ledger_pages.js';
import { parseOrThrow } from './parse.js';
import { IMMUTABLE, type ReadOverride } from './read_mount.js';
import { AGENT_ID_PATTERN, type Engine, isoAt } from '../engine/index.js';

const NonceQuery = z.object({
  agent: z.string().regex(AGENT_ID_PATTERN, 'must be an agent id: ag_ followed by 16 lowercase hex digits'),
});

interface ReadDeps {
  engine: Engine;
  nonces: NonceBook;
  nonce_limits: NonceLimits;
  clock: () => number;
}

/** The public reads that are not views of the society: the agent rules and the nonces. */
export function mountReadRoutes(router: Routes, deps: ReadDeps): void {
  const { engine, nonces } = deps;

  router.get('/.well-known/agent-rules.json', (ctx) => {
    ctx.body = agentRules(engine.state.params);
  });

  const nonce_limit = nonceLimit(deps.nonce_limits, deps.clock);
  router.get('/api/v1/nonce', (ctx) => {
    nonce_limit.checkRequest(ctx);
    const { agent } = parseOrThrow(NonceQuery, ctx.query, ['query']);
    const issued = nonces.issue(agent);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { agent: issued.agent, nonce: issued.nonce, expires_at: isoAt(issued.expires_at_ms) };
  });
}

/**
 * The ledger_read route answers with spliced bytes (LedgerPages), never parsing an
 * entry; the view answers the same for the MCP tool (test/read_catalogue.test.ts).
 */
export function ledgerRoute(pages: LedgerPages): ReadOverride {
  return (ctx, args) => {
    const { from, limit } = args as { from: number; limit: number };
    const { body, full } = pages.page(from, limit);
    if (full) ctx.set('Cache-Control', IMMUTABLE);
    ctx.type = 'application/json';
    ctx.body = body;
  };
}
