import type { Routes } from '../routes.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Context } from 'koa';
import {
  ACT_ROUTES,
  oneLineText,
  type Engine,
  findAct,
  gateRefusal,
  canonicalJson,
  ownValue,
  sha256Hex,
} from '../../engine/index.js';
import { grantOfferPage, messagePage } from '../../render/treasury_pages.js';
import { GRANT_PAGE_CSP } from '../read_limiter.js';
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
  visitorOf: (ctx: Context) => string;
}

/**
 * One-time grant links. The Founder asks for one (signed); the host makes the token,
 * the engine records only its hash; the first person to take it from the link's page
 * redeems it.
 */
export function mountGrantRoutes(router: Routes, deps: GrantDeps): void {
  router.post(ACT_ROUTES.grant_issue, async (ctx) => {
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

  // Opening the link only shows what it grants: a chat app's link preview, a mail scanner or a
  // prefetch GETs it too, and must not spend it. The person takes it with the page's button (a POST).
  router.get('/access/grant/:token', (ctx) => {
    const token = ctx.params.token ?? '';
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    const grant = unredeemedGrant(deps.engine, token);
    if (!grant) return grantGone(ctx);
    ctx.set('Content-Security-Policy', GRANT_PAGE_CSP);
    ctx.body = grantOfferPage(bareFrame('A grant for you'), { kind: grant.kind, action: `/access/grant/${token}` });
  });

  router.post('/access/grant/:token', async (ctx) => {
    const token = ctx.params.token ?? '';
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    // Another site's page cannot spend a link it saw: browsers say where a form came from.
    if (ctx.get('Sec-Fetch-Site') === 'cross-site') {
      ctx.status = 403;
      ctx.body = messagePage(bareFrame('Grant'), [
        'A grant is taken from its own page, not from another site. Nothing changed.',
      ]);
      return;
    }
    const outcome = TOKEN_SHAPE.test(token)
      ? await deps.engine.submit({
          act: 'grant_redeem',
          actor: 'system',
          payload: { token_sha256: sha256Hex(token), visitor_id: deps.visitorOf(ctx) },
        })
      : undefined;
    if (!outcome?.ok) return grantGone(ctx);
    ctx.body = messagePage(bareFrame('Grant'), [
      'The grant is yours: you are off the watchers display on this browser.',
    ]);
  });
}

/** The tokens the issuing route makes: 24 random bytes, base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/** The grant a token names, if it is still there to take; a read, it changes nothing. */
function unredeemedGrant(engine: Engine, token: string) {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const grant = ownValue(engine.state.payments.grants, sha256Hex(token));
  return grant && grant.redeemed_by === null ? grant : undefined;
}

function grantGone(ctx: Context): void {
  ctx.status = 410;
  ctx.body = messagePage(bareFrame('Grant'), ['That grant link is unknown or was used already. Nothing changed.']);
}
