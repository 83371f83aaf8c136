import { z } from 'zod';
import {
  AGENT_ID_PATTERN,
  PROCESSOR_EVENT_ID_PATTERN,
  PROCESSOR_EVENT_TYPE_PATTERN,
  PROCESSOR_OBJECT_ID_PATTERN,
  PaymentEventSchema,
  VISITOR_ID_PATTERN,
} from '../../engine/index.js';

type Text = string | null;
export type PaymentEvent = z.output<typeof PaymentEventSchema>;

/**
 * The part of a processor event this service reads. A body that verifies is still
 * checked against it: the signature proves who sent the bytes, not that they are an
 * event, and nothing is recorded from a body that is not one.
 */
const ProcessorEventSchema = z.object({
  id: z.string().regex(PROCESSOR_EVENT_ID_PATTERN),
  type: z.string().regex(PROCESSOR_EVENT_TYPE_PATTERN),
  livemode: z.boolean(),
  data: z.object({ object: z.looseObject({}) }),
});

const shaped =
  (pattern: RegExp) =>
  (value: unknown): Text =>
    typeof value === 'string' && pattern.test(value) ? value : null;
const agentOf = shaped(AGENT_ID_PATTERN);
const observerOf = shaped(VISITOR_ID_PATTERN);
const processorIdOf = shaped(PROCESSOR_OBJECT_ID_PATTERN);
/** A processor reference is an id, or the expanded object carrying it. */
const idOf = (value: unknown): Text =>
  processorIdOf(value !== null && typeof value === 'object' && 'id' in value ? value.id : value);
const textOf = (value: unknown): Text => (typeof value === 'string' ? value : null);
const centsOf = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/**
 * Reduces a verified processor event to what membership needs: ids, status and the
 * amount, or undefined if the body is not a well-formed event. Card data and session
 * secrets never leave this function; an id of a shape the processor never issues
 * counts as absent.
 */
export function paymentEventOf(body: unknown): PaymentEvent | undefined {
  const envelope = ProcessorEventSchema.safeParse(body);
  if (!envelope.success) return undefined;
  const { id, type, livemode, data } = envelope.data;
  const object = data.object as any;
  const base = { event_id: id, type, livemode, customer_id: idOf(object.customer) };
  const reduced = PaymentEventSchema.safeParse({ ...base, ...fieldsOf(type, object) });
  return reduced.success ? reduced.data : undefined;
}

function fieldsOf(type: string, object: any) {
  switch (type) {
    case 'checkout.session.completed':
      return {
        agent_id: agentOf(object.metadata?.agent_id) ?? agentOf(object.client_reference_id),
        observer_id: observerOf(object.metadata?.observer_id),
        subscription_id: idOf(object.subscription),
        amount_cents: centsOf(object.amount_total),
      };
    case 'invoice.paid':
    case 'invoice.payment_failed':
      return {
        agent_id:
          agentOf(object.subscription_details?.metadata?.agent_id) ??
          agentOf(object.parent?.subscription_details?.metadata?.agent_id),
        subscription_id: idOf(object.subscription) ?? idOf(object.parent?.subscription_details?.subscription),
        amount_cents: centsOf(object.amount_paid),
      };
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return {
        agent_id: agentOf(object.metadata?.agent_id),
        subscription_id: idOf(object),
        subscription_status: textOf(object.status),
      };
    default:
      return {};
  }
}
