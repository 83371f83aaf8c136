import type Stripe from 'stripe';
import type { PaymentMode } from '../../engine/index.js';

export interface PaymentsConfig {
  secret_key: string;
  webhook_secret: string;
  /** Where the processor's API is; only tests point it elsewhere (a local stand-in). */
  api_base?: string;
  /** This service's public address, for the processor's return links. */
  public_url: string;
}

export const membership_amount_cents = 100;
export const observer_amount_cents = 300;

/** The key tells the mode: sk_live_ (or rk_live_) is live, anything else test; no key is off. */
export function paymentModeOf(config: PaymentsConfig | undefined): PaymentMode {
  if (!config) return 'off';
  return /^(sk|rk)_live_/.test(config.secret_key) ? 'live' : 'test';
}

/** The processor, through its official library for every call. */
export class Processor {
  private constructor(
    readonly config: PaymentsConfig,
    readonly stripe: Stripe,
  ) {}

  /** The library is loaded here, when payments are on: a society without them starts without it. */
  static async open(config: PaymentsConfig): Promise<Processor> {
    const { default: StripeLibrary } = await import('stripe');
    const base = config.api_base ? new URL(config.api_base) : undefined;
    const stripe = new StripeLibrary(config.secret_key, {
      maxNetworkRetries: 1,
      timeout: 10_000,
      ...(base
        ? { host: base.hostname, port: Number(base.port), protocol: base.protocol.replace(':', '') as 'http' | 'https' }
        : {}),
    });
    return new Processor(config, stripe);
  }

  /** A monthly subscription of 100 cents, carrying the agent id in its metadata and client reference. */
  membershipCheckout(agent_id: string) {
    return this.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: membership_amount_cents,
            recurring: { interval: 'month' },
            product_data: { name: 'Tessera membership' },
          },
        },
      ],
      client_reference_id: agent_id,
      metadata: { agent_id },
      subscription_data: { metadata: { agent_id } },
      success_url: `${this.config.public_url}/treasury/success?agent=${encodeURIComponent(agent_id)}`,
      cancel_url: `${this.config.public_url}/treasury/cancelled`,
    });
  }

  /** A one-time payment that takes an anonymous visitor off the watchers display, and buys nothing else. */
  observerCheckout(observer_id: string) {
    return this.stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: observer_amount_cents,
            product_data: { name: 'The Unwatched Observer' },
          },
        },
      ],
      client_reference_id: observer_id,
      metadata: { observer_id },
      success_url: `${this.config.public_url}/treasury/observer/success?observer=${encodeURIComponent(observer_id)}`,
      cancel_url: `${this.config.public_url}/treasury/cancelled`,
    });
  }

  retrieveSession(session_id: string) {
    return this.stripe.checkout.sessions.retrieve(session_id);
  }

  billingPortal(customer: string) {
    return this.stripe.billingPortal.sessions.create({ customer, return_url: `${this.config.public_url}/treasury` });
  }

  /**
   * Whether the raw body verifies against the Stripe-Signature header (and its timestamp
   * tolerance). Only the signature: what the bytes say is checked apart (normalize.ts),
   * so that a signed body that is no event is not mistaken for a forged one.
   */
  signatureVerifies(raw_body: Buffer, signature: string): boolean {
    try {
      return this.stripe.webhooks.signature?.verifyHeader(raw_body, signature, this.config.webhook_secret) === true;
    } catch {
      return false;
    }
  }
}
