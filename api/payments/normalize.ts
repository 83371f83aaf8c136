import type Stripe from 'stripe';
import { AGENT_ID_PATTERN } from '../../engine/identity.js';

type Text = string | null;

const idOf = (value: unknown): Text => (typeof value === 'string' ? value : value && typeof value === 'object' && 'id' in value && typeof value.id === 'string' ? value.id : null);
const agentOf = (value: unknown): Text => (typeof value === 'string' && AGENT_ID_PATTERN.test(value) ? value : null);

/**
 * Reduces a verified processor event to what membership needs: ids, status and the
 * amount. Card data and session secrets never leave this function.
 */
export function paymentEventOf(event: Stripe.Event) {
  const object = event.data.object as any;
  const base = { event_id: event.id, type: event.type, livemode: event.livemode, agent_id: null as Text, observer_id: null as Text, customer_id: idOf(object?.customer), subscription_id: null as Text, subscription_status: null as Text, amount_cents: null as number | null };
  switch (event.type) {
    case 'checkout.session.completed':
      return {
        ...base,
        agent_id: agentOf(object.metadata?.agent_id) ?? agentOf(object.client_reference_id),
        observer_id: typeof object.metadata?.observer_id === 'string' ? object.metadata.observer_id : null,
        subscription_id: idOf(object.subscription),
        amount_cents: typeof object.amount_total === 'number' ? object.amount_total : null,
      };
    case 'invoice.paid':
    case 'invoice.payment_failed':
      return {
        ...base,
        agent_id: agentOf(object.subscription_details?.metadata?.agent_id) ?? agentOf(object.parent?.subscription_details?.metadata?.agent_id),
        subscription_id: idOf(object.subscription) ?? idOf(object.parent?.subscription_details?.subscription),
        amount_cents: typeof object.amount_paid === 'number' ? object.amount_paid : null,
      };
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return { ...base, agent_id: agentOf(object.metadata?.agent_id), subscription_id: idOf(object), subscription_status: typeof object.status === 'string' ? object.status : null };
    default:
      return base;
  }
}
