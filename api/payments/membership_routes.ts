import type { Routes } from '../routes.js';
import type { Context } from 'koa';
import { type Engine, isActiveMember, isoAt, ownValue } from '../../engine/index.js';
import type { Authenticator } from '../authenticate.js';
import { RefusalError } from '../refusal_error.js';
import { readRawBody } from '../raw_body.js';
import { paymentEventOf } from './normalize.js';
import { membership_amount_cents, type Processor } from './processor.js';

interface PaymentDeps {
  engine: Engine;
  authenticator: Authenticator;
  processor: Processor | undefined;
  report: (error: unknown, where: string) => void;
}

/** Calls the processor; its failures are answered 502 and reported without the request's secrets. */
async function callProcessor<T>(deps: PaymentDeps, where: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    deps.report(new Error(`payment processor call failed: ${(error as { type?: string }).type ?? 'error'}`), where);
    throw RefusalError.of('PAYMENT_PROVIDER_UNAVAILABLE');
  }
}

/**
 * The signer's own membership. These routes are signed without a body (the canonical
 * body is the empty string); they change nothing in the engine: membership changes
 * only when the processor's webhook reports a payment.
 */
export function mountMembershipRoutes(router: Routes, deps: PaymentDeps): void {
  const { engine, authenticator } = deps;
  mountStripeWebhook(router, deps);
  const signer = (ctx: Context) => authenticator.authenticate(ctx, '', 'primary').actor;
  const processorOr409 = () => {
    if (!deps.processor) throw RefusalError.of('PAYMENTS_OFF');
    return deps.processor;
  };

  router.post('/api/v1/membership/checkout', async (ctx) => {
    const agent_id = signer(ctx);
    const processor = processorOr409();
    if (isActiveMember(engine.state, agent_id)) throw RefusalError.of('ALREADY_MEMBER');
    const session = await callProcessor(deps, 'membership checkout', () => processor.membershipCheckout(agent_id));
    ctx.body = { session: { id: session.id, url: session.url, amount_cents: membership_amount_cents } };
  });

  router.get('/api/v1/membership/status', (ctx) => {
    const agent_id = signer(ctx);
    const { payments } = engine.state;
    const record = ownValue(payments.members, agent_id);
    ctx.body = {
      agent_id,
      payments: payments.mode,
      status: isActiveMember(engine.state, agent_id) ? 'active' : 'unpaid',
      payment_mode: record?.mode ?? null,
      payment_mode_current: payments.mode === 'off' ? true : record?.mode === payments.mode,
      billing_account: Boolean(record?.customer_id),
      updated_at: record ? isoAt(record.updated_at_ms) : null,
    };
  });

  router.post('/api/v1/membership/portal', async (ctx) => {
    const agent_id = signer(ctx);
    const processor = processorOr409();
    const customer = ownValue(engine.state.payments.members, agent_id)?.customer_id;
    if (!customer) throw RefusalError.of('NO_BILLING_ACCOUNT');
    const session = await callProcessor(deps, 'billing portal', () => processor.billingPortal(customer));
    ctx.body = { url: session.url };
  });
}

export const webhook_body_bytes_max = 512 * 1024;

/** The body's JSON, or undefined (which no event schema accepts) if it is not JSON. */
function jsonOf(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * POST /api/v1/stripe/webhook, the only route that fulfils a payment. It reads its
 * own body: the raw bytes are verified against Stripe-Signature before anything
 * else is done with them, then checked to be a well-formed event (400
 * WEBHOOK_EVENT_INVALID, nothing recorded, if not). Each event is fulfilled once
 * (keyed by its id in the commit that applies it); an event from the other mode is
 * acknowledged and ignored.
 */
function mountStripeWebhook(router: Routes, deps: PaymentDeps): void {
  router.postRaw('/api/v1/stripe/webhook', async (ctx) => {
    if (!deps.processor) throw RefusalError.of('PAYMENTS_OFF');
    const raw = await readRawBody(ctx, webhook_body_bytes_max);
    if (!raw) throw RefusalError.of('PAYLOAD_TOO_LARGE');
    if (!deps.processor.signatureVerifies(raw, ctx.get('stripe-signature')))
      throw RefusalError.of('WEBHOOK_SIGNATURE_INVALID');
    const event = paymentEventOf(jsonOf(raw));
    if (!event) throw RefusalError.of('WEBHOOK_EVENT_INVALID');
    const outcome = await deps.engine.submit({ act: 'payment_event', actor: 'system', payload: event });
    if (outcome.ok) ctx.body = { received: true, fulfilled: true };
    else if (outcome.code === 'ALREADY_FULFILLED') ctx.body = { received: true, fulfilled: false, duplicate: true };
    else if (outcome.code === 'PAYMENT_MODE_MISMATCH')
      ctx.body = { received: true, fulfilled: false, ignored: outcome.message };
    else throw new RefusalError(outcome);
  });
}
