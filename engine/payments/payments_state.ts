import type { EpochMs } from '../time.js';

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
  observers: Record<string, { mode: 'test' | 'live'; paid_cents: number; at_ms: EpochMs }>;
}

export function createPayments(): PaymentsState {
  return { mode: 'off', members: {}, fulfilled: {}, customers: {}, observers: {} };
}
