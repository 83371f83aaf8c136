import { z } from 'zod';
import { defineAct } from '../act.js';
import { refuse } from '../refusals.js';
import type { MemberPayment } from '../payments/payments_state.js';
import { AGENT_ID_PATTERN } from '../identity.js';
import { ownValue } from '../keyed.js';
import { textAtMost } from '../text.js';

/** A processor event id (evt_...); bounded, and never a name an object inherits. */
export const PROCESSOR_EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_]{1,251}$/;
/** A processor object id (cus_..., sub_...): a lowercase prefix, an underscore, letters, digits and underscores. */
export const PROCESSOR_OBJECT_ID_PATTERN = /^[a-z]{1,16}_[A-Za-z0-9_]{1,238}$/;
/** A processor event type (checkout.session.completed, ...). */
export const PROCESSOR_EVENT_TYPE_PATTERN = /^[a-z0-9_.]{1,100}$/;
/** The visitor ids the service hands out (the observer's key in the state). */
export const VISITOR_ID_PATTERN = /^v_[0-9a-f]{16}$/;

const bounded = textAtMost(255).nullable().default(null);
const idShaped = (pattern: RegExp) => z.string().regex(pattern).nullable().default(null);

/**
 * A processor event the webhook verified, reduced to what membership needs (never card
 * data, never session secrets). Each event id takes effect once, in the same commit as
 * its effect; membership starts, renews, lapses and ends only here.
 */
export const PaymentEventSchema = z.strictObject({
  event_id: z.string().regex(PROCESSOR_EVENT_ID_PATTERN),
  type: z.string().regex(PROCESSOR_EVENT_TYPE_PATTERN),
  livemode: z.boolean(),
  agent_id: idShaped(AGENT_ID_PATTERN),
  observer_id: idShaped(VISITOR_ID_PATTERN),
  customer_id: idShaped(PROCESSOR_OBJECT_ID_PATTERN),
  subscription_id: idShaped(PROCESSOR_OBJECT_ID_PATTERN),
  subscription_status: bounded,
  amount_cents: z.int().min(0).max(100_000_000).nullable().default(null),
});

export const paymentEvent = defineAct({
  name: 'payment_event',
  summary: 'Fulfils one verified payment processor event (engine only, from the webhook).',
  payload: PaymentEventSchema,
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, event) {
    const { state, at_ms } = ctx;
    const payments = state.payments;
    if (ownValue(payments.fulfilled, event.event_id) !== undefined) return refuse('ALREADY_FULFILLED');
    const mode = event.livemode ? 'live' : 'test';
    if (payments.mode !== mode)
      return refuse('PAYMENT_MODE_MISMATCH', `A ${mode} event reached a service in ${payments.mode} mode.`);

    const agent_id =
      event.agent_id ?? (event.customer_id ? ownValue(payments.customers, event.customer_id) : undefined) ?? null;
    const member = agent_id && state.agents.has(agent_id) ? agent_id : null;
    let status: MemberPayment['status'] | null = null;
    if (event.type === 'checkout.session.completed' && event.observer_id) {
      payments.observers[event.observer_id] = { mode, paid_cents: event.amount_cents ?? 0, at_ms };
    } else if (member) {
      if (event.type === 'checkout.session.completed' || event.type === 'invoice.paid') status = 'active';
      else if (event.type === 'invoice.payment_failed' || event.type === 'customer.subscription.deleted')
        status = 'unpaid';
      else if (event.type === 'customer.subscription.updated')
        status =
          event.subscription_status === 'active' || event.subscription_status === 'trialing' ? 'active' : 'unpaid';
      if (status) {
        const previous = ownValue(payments.members, member);
        payments.members[member] = {
          status,
          mode,
          customer_id: event.customer_id ?? previous?.customer_id ?? null,
          subscription_id: event.subscription_id ?? previous?.subscription_id ?? null,
          paid_cents_total:
            (previous?.paid_cents_total ?? 0) +
            (status === 'active' && event.type !== 'customer.subscription.updated' ? (event.amount_cents ?? 0) : 0),
          updated_at_ms: at_ms,
        };
        if (event.customer_id) payments.customers[event.customer_id] = member;
      }
    }
    payments.fulfilled[event.event_id] = at_ms;
    ctx.emit({
      event_type: 'payment_recorded',
      actor: 'system',
      data: {
        agent_id: member,
        amount_cents: event.amount_cents,
        event_id: event.event_id,
        mode,
        observer_id: event.observer_id,
        status,
        type: event.type,
      },
    });
    return { ok: true, result: { event_id: event.event_id, agent_id: member, status } };
  },
});
