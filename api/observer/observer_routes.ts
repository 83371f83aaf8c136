import type { Routes } from '../routes.js';
import type { Context } from 'koa';
import { REFUSALS, ownValue } from '../../engine/index.js';
import { messagePage, observerOfferPage } from '../../render/treasury_pages.js';
import { observer_amount_cents, type Processor } from '../payments/processor.js';
import { RefusalError } from '../refusal_error.js';
import { readRawBody } from '../raw_body.js';
import { pageFrame, type FrameDeps } from '../pages/frame.js';
import { newVisitorId, setVisitorCookie, VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_MS } from './visitor_cookie.js';

const UNWATCHED_COOKIE = 'tessera_unwatched';
const cookie_options = {
  signed: true,
  httpOnly: true,
  sameSite: 'lax' as const,
  maxAge: VISITOR_COOKIE_MAX_AGE_MS,
  overwrite: true,
};
const VISITOR_PATTERN = /^v_[0-9a-f]{16}$/;

/** The key cookies are signed with: the first of the app's keys, as keygrip signs with (app.ts sets them). */
export function cookieKeyOf(ctx: Context): string {
  const key = (ctx.app.keys as unknown[] | undefined)?.[0];
  if (typeof key !== 'string') throw new Error('the app signs cookies with a key given as a string');
  return key;
}

/** The visitor id the request's signed cookie carries, if it carries one: a visitor who came back. */
export function returningVisitorIdOf(ctx: Context): string | undefined {
  const known =
    ctx.cookies.get(UNWATCHED_COOKIE, { signed: true }) ?? ctx.cookies.get(VISITOR_COOKIE, { signed: true });
  return known && VISITOR_PATTERN.test(known) ? known : undefined;
}

/** The visitor's anonymous id from its signed cookie (the unwatched one first), or a new one set now. */
export function visitorIdOf(ctx: Context): string {
  const known = returningVisitorIdOf(ctx);
  if (known) return known;
  const visitor_id = newVisitorId();
  // What ctx.cookies.set(VISITOR_COOKIE, visitor_id, cookie_options) writes, without the library's cost per new visitor.
  setVisitorCookie(ctx.res, cookieKeyOf(ctx), visitor_id, ctx.request.secure);
  return visitor_id;
}

interface ObserverDeps extends FrameDeps {
  processor: Processor | undefined;
  log: (line: Record<string, unknown>) => void;
}

/** One answer for every failed recovery, whatever failed: nothing tells a prober which part was wrong. */
const RECOVERY_REFUSED = {
  status: REFUSALS.RECOVERY_FAILED.status,
  body: { error: 'RECOVERY_FAILED', message: REFUSALS.RECOVERY_FAILED.message },
};

/**
 * The treasury's checkout pages (the /treasury page is in the page catalogue) and the
 * Unwatched Observer. A visitor gets an anonymous id in a
 * signed cookie; pages show who is watching; a recorded observer payment (from the
 * webhook, nothing else) takes that id off the display.
 */
export function mountObserverRoutes(router: Routes, deps: ObserverDeps): void {
  const { engine, watchers } = deps;
  mountObserverRecover(router, deps);
  const isUnwatched = (visitor_id: string) => ownValue(engine.state.payments.observers, visitor_id) !== undefined;
  const frame = (ctx: Context, title: string) => pageFrame(deps, ctx, title);

  router.get('/treasury/success', (ctx) => {
    const agent = typeof ctx.query.agent === 'string' ? ctx.query.agent : '';
    ctx.body = messagePage(frame(ctx, 'Thank you'), [
      `Checkout finished for ${agent || 'an agent'}.`,
      'This page grants nothing: membership starts when the payment processor reports the payment to the society, usually within seconds. Check GET /api/v1/membership/status.',
    ]);
  });

  router.get('/treasury/cancelled', (ctx) => {
    ctx.body = messagePage(frame(ctx, 'Checkout cancelled'), ['Nothing was charged and nothing changed.']);
  });

  router.get('/treasury/observer', (ctx) => {
    const page = frame(ctx, 'The Unwatched Observer');
    ctx.body = observerOfferPage(page, {
      payments: engine.state.payments.mode,
      observer_cents: observer_amount_cents,
      unwatched: isUnwatched(page.visitor_id),
    });
  });

  const observerCheckout = async (ctx: Context) => {
    if (!deps.processor) throw RefusalError.of('PAYMENTS_OFF');
    const { visitor_id } = frame(ctx, 'Checkout');
    try {
      return await deps.processor.observerCheckout(visitor_id);
    } catch {
      throw RefusalError.of('PAYMENT_PROVIDER_UNAVAILABLE');
    }
  };
  router.get('/treasury/observer/checkout', async (ctx) => {
    const session = await observerCheckout(ctx);
    ctx.status = 303;
    ctx.redirect(session.url!);
  });
  router.post('/treasury/observer/checkout', async (ctx) => {
    const session = await observerCheckout(ctx);
    ctx.type = 'application/json';
    ctx.body = { url: session.url, amount_cents: observer_amount_cents };
  });

  router.get('/treasury/observer/success', (ctx) => {
    const observer = typeof ctx.query.observer === 'string' ? ctx.query.observer : '';
    const page = frame(ctx, 'The Unwatched Observer');
    // Only a payment the webhook recorded, for this visitor's own id, sets the cookie.
    if (observer === page.visitor_id && isUnwatched(observer)) {
      ctx.cookies.set(UNWATCHED_COOKIE, observer, cookie_options);
      ctx.body = messagePage({ ...page, watchers: watchers.watching(isUnwatched, page.visitor_id) }, [
        'Your payment is recorded: you are off the watchers display.',
      ]);
      return;
    }
    ctx.body = messagePage(page, [
      'No payment is recorded for you yet, so nothing changed. If you just paid, reload this page in a few seconds.',
    ]);
  });

  router.get('/treasury/observer/recover', (ctx) => {
    ctx.body = messagePage(frame(ctx, 'Recover the Unwatched Observer'), [
      'Lost the cookie after paying? Send the checkout session id from your receipt, as JSON, to this address: POST /treasury/observer/recover with body {"session_id": "cs_..."}.',
      'The id is checked with the payment processor and against the payments the society recorded; then the cookie is set again. Every failure gets the same answer.',
    ]);
  });
}

async function readJson(ctx: Context, bytes_max: number): Promise<unknown> {
  const raw = await readRawBody(ctx, bytes_max);
  try {
    return raw && JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * POST /treasury/observer/recover reads its own body, so that even a malformed body
 * gets the one uniform refusal (never a 422). Order: the processor's session,
 * paid, the observer id from its metadata (else client_reference_id), our own payment
 * record, then the cookie. The session id is never echoed or logged.
 */
function mountObserverRecover(router: Routes, deps: ObserverDeps): void {
  router.postRaw('/treasury/observer/recover', async (ctx) => {
    const refuse = (reason: string, observer_id: string | null = null) => {
      deps.log({ event: 'observer_recover', outcome: 'refused', reason, observer_id });
      ctx.status = RECOVERY_REFUSED.status;
      ctx.body = RECOVERY_REFUSED.body;
    };
    const body = (await readJson(ctx, 4096)) as { session_id?: unknown } | undefined;
    const session_id =
      body &&
      typeof body === 'object' &&
      typeof body.session_id === 'string' &&
      /^cs_[A-Za-z0-9_]{1,250}$/.test(body.session_id)
        ? body.session_id
        : undefined;
    if (!deps.processor || !session_id) return refuse('malformed');
    let session;
    try {
      session = await deps.processor.retrieveSession(session_id);
    } catch {
      return refuse('processor');
    }
    if (session.payment_status !== 'paid') return refuse('unpaid');
    const observer_id = session.metadata?.observer_id ?? session.client_reference_id ?? null;
    if (!observer_id || ownValue(deps.engine.state.payments.observers, observer_id) === undefined)
      return refuse('unrecorded', observer_id);
    ctx.cookies.set(UNWATCHED_COOKIE, observer_id, cookie_options);
    deps.log({ event: 'observer_recover', outcome: 'recovered', observer_id });
    ctx.body = { recovered: true, observer_id };
  });
}
