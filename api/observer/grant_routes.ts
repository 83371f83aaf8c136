import type { Routes } from '../routes.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { oneLineText, type Engine, findAct, gateRefusal, canonicalJson, sha256Hex } from '../../engine/index.js';
import { messagePage } from '../../render/treasury_pages.js';
import { bareFrame } from '../pages/frame.js';
import type { Authenticator } from '../authenticate.js';
import { parseOrThrow } from '../parse.js';
import { RefusalError } from '../refusal_error.js';

const GrantRequest = z.strictObject({
  kind: z.enum(['observer']).default('observer'),
  note: oneLineText(500).default(''),
});

interface GrantDeps {
  engine: Engine;
  authenticator: Authenticator;
  public_url: string;
  visitorOf: (ctx: import('koa').Context) => string;
}

/**
 * One-time grant links. The Founder asks for one (signed); the host makes the token,
 * the engine records only its hash; whoever opens the link first redeems it.
 */
export function mountGrantRoutes(router: Routes, deps: GrantDeps): void {
  router.post('/api/v1/grants', async (ctx) => {
    const request = parseOrThrow(GrantRequest, ctx.request.body, ['body']);
    // Before the signature, as for every act: a refusal for a full queue leaves the nonce unspent.
    const full = deps.engine.queueFullRefusal();
    if (full) throw new RefusalError(full);
    const auth = deps.authenticator.authenticate(ctx, canonicalJson(request), 'primary');
    const gated = gateRefusal(deps.engine.state, findAct('grant_issue')!, auth.actor);
    if (gated) throw new RefusalError(gated);
    const token = randomBytes(24).toString('base64url');
    const outcome = await deps.engine.submit({
      act: 'grant_issue',
      actor: auth.actor,
      payload: { token_sha256: sha256Hex(token), ...request },
      proof: auth.proof,
      consumed_nonce: auth.consumed_nonce,
    });
    if (!outcome.ok) throw new RefusalError(outcome);
    ctx.body = { kind: request.kind, url: `${deps.public_url}/access/grant/${token}` };
  });

  router.get('/access/grant/:token', async (ctx) => {
    const token = ctx.params.token ?? '';
    const visitor_id = deps.visitorOf(ctx);
    const outcome = /^[A-Za-z0-9_-]{32}$/.test(token)
      ? await deps.engine.submit({
          act: 'grant_redeem',
          actor: 'system',
          payload: { token_sha256: sha256Hex(token), visitor_id },
        })
      : undefined;
    ctx.type = 'text/html; charset=utf-8';
    if (!outcome?.ok) {
      ctx.status = 410;
      ctx.body = messagePage(bareFrame('Grant'), ['That grant link is unknown or was used already. Nothing changed.']);
      return;
    }
    ctx.body = messagePage(bareFrame('Grant'), [
      'The grant is yours: you are off the watchers display on this browser.',
    ]);
  });
}
