import type { EpochMs } from '../time.js';
import { keyedRecord } from '../keyed.js';

/** off: the embedded default, every registered agent is a member; test or live: told by the processor key. */
export type PaymentMode = 'off' | 'test' | 'live';

export interface MemberPayment {
  status: 'active' | 'unpaid';
  /** The mode the recorded payment was made in; a payment from the other mode does not count. */
  mode: 'test' | 'live';
  customer_id: string | null;
  subscription_id: string | null;
  paid_cents_total: number;
  updated_at_ms: EpochMs;
}

export interface PaymentsState {
  mode: PaymentMode;
  members: Record<string, MemberPayment>;
  /** Processor event id -> when it was fulfilled: each event takes effect once. */
  fulfilled: Record<string, EpochMs>;
  customers: Record<string, string>;
  /** Visitors off the watchers display: by a recorded payment, or by a Founder's grant. */
  observers: Record<string, { mode: 'test' | 'live' | 'grant'; paid_cents: number; at_ms: EpochMs }>;
  /** One-time grants by the SHA-256 of their token. */
  grants: Record<string, { kind: 'observer'; note: string; issued_at_ms: EpochMs; redeemed_by: string | null }>;
}

export function createPayments(): PaymentsState {
  return {
    mode: 'off',
    members: keyedRecord(),
    fulfilled: keyedRecord(),
    customers: keyedRecord(),
    observers: keyedRecord(),
    grants: keyedRecord(),
  };
}
