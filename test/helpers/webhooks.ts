import Stripe from 'stripe';
import { request } from './signed.js';

export const WEBHOOK_SECRET = 'whsec_test_secret_for_tessera';
const stripe = new Stripe('sk_test_signing_only');

/** Sends any body to the webhook, signed with the real library (with another secret or an old timestamp if asked). */
export function sendSignedWebhook(
  url: string,
  payload: string,
  options: { timestamp?: number; secret?: string; headers?: Record<string, string> } = {},
) {
  const signature = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
  });
  return request(url, '/api/v1/stripe/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature, ...options.headers },
    body: payload,
  });
}

/** Correctly signed bodies that are not events this service can record. */
export function malformedEvents(agent_id: string): Record<string, unknown> {
  const event = (fields: Record<string, unknown>) => ({
    id: 'evt_test_malformed',
    object: 'event',
    type: 'checkout.session.completed',
    livemode: false,
    data: { object: { customer: 'cus_malformed', amount_total: 100, metadata: { agent_id } } },
    ...fields,
  });
  return {
    'an array': [event({})],
    null: null,
    'a string': 'evt_test_1',
    'an empty object': {},
    'no data': event({ data: undefined }),
    'data null': event({ data: null }),
    'data.object null': event({ data: { object: null } }),
    'data.object an array': event({ data: { object: [] } }),
    'data.object a string': event({ data: { object: 'cs_1' } }),
    'no event id': event({ id: undefined }),
    'a numeric event id': event({ id: 42 }),
    'an empty event id': event({ id: '' }),
    'an event id of 300 characters': event({ id: `evt_${'a'.repeat(296)}` }),
    'an event id of another shape': event({ id: 'cs_test_1' }),
    'an event id named like a property': event({ id: '__proto__' }),
    'no type': event({ type: undefined }),
    'a type of 300 characters': event({ type: 'a'.repeat(300) }),
    'a type with a newline': event({ type: 'checkout.session.completed\n' }),
    'no livemode': event({ livemode: undefined }),
    'livemode as a string': event({ livemode: 'false' }),
    'a negative amount': event({ data: { object: { amount_total: -100, metadata: { agent_id } } } }),
    'a fractional amount': event({ data: { object: { amount_total: 1.5, metadata: { agent_id } } } }),
    'a subscription status of 300 characters': event({
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_1', status: 'a'.repeat(300), metadata: { agent_id } } },
    }),
  };
}
