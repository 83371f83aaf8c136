import { TesseraClient } from '../client/sdk.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, tempDir, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake_stripe.js';
import { WEBHOOK_SECRET, malformedEvents, sendSignedWebhook } from './helpers/webhooks.js';
import { join, refusal, type Member } from './helpers/world.js';

let fake: FakeStripe;
let society: TestSociety;
let url: string;
const data_dir = tempDir();
let event_counter = 0;

async function startPaid(secret_key: string): Promise<TestSociety> {
  return startTestSociety({
    data_dir,
    genesis: { world_seed: 'world-tests' },
    config: {
      payments: { secret_key, webhook_secret: WEBHOOK_SECRET, api_base: fake.url, public_url: 'http://society.test' },
    },
  });
}

beforeAll(async () => {
  fake = await startFakeStripe();
  society = await startPaid('sk_test_tessera');
  url = society.url;
});
afterAll(async () => {
  await society.destroy();
  await fake.close();
});
afterEach(() => expect(society.bugs.filter((bug) => !bug.includes('payment processor call failed'))).toEqual([]));

/** Sends a processor event to the webhook, signed with the real library. */
async function deliver(
  type: string,
  object: Record<string, unknown>,
  options: { livemode?: boolean; id?: string; timestamp?: number; secret?: string } = {},
) {
  const payload = JSON.stringify({
    id: options.id ?? `evt_test_${++event_counter}`,
    object: 'event',
    type,
    livemode: options.livemode ?? false,
    api_version: '2026-01-01',
    created: 1,
    data: { object },
  });
  return sendSignedWebhook(url, payload, options);
}

const paid = (member: Member, customer = `cus_${member.id}`) =>
  deliver('checkout.session.completed', {
    id: `cs_${member.id}`,
    object: 'checkout.session',
    mode: 'subscription',
    customer,
    subscription: `sub_${member.id}`,
    amount_total: 100,
    client_reference_id: member.id,
    metadata: { agent_id: member.id },
    payment_status: 'paid',
  });
const status = (member: Member) => member.client.signed<any>('GET', '/api/v1/membership/status', undefined);
const checkout = (member: Member) => member.client.signed<any>('POST', '/api/v1/membership/checkout', undefined);

describe('membership through the processor', () => {
  it('starts unpaid: checkout creates a subscription session carrying the agent id; the redirect alone grants nothing', async () => {
    const member = await join(society, 'newcomer');
    expect(await status(member)).toMatchObject({ status: 'unpaid', payments: 'test', billing_account: false });
    const gated = await refusal(member.client.act('world_look', { radius: 2 }));
    expect([gated.status, gated.code]).toEqual([402, 'MEMBERSHIP_REQUIRED']);
    const session = (await checkout(member)).session;
    expect(session).toMatchObject({
      id: expect.stringMatching(/^cs_test_/),
      url: expect.stringContaining('checkout'),
      amount_cents: 100,
    });
    const sent = fake.requests.at(-1)!;
    expect([
      sent.path,
      sent.form.get('mode'),
      sent.form.get('client_reference_id'),
      sent.form.get('metadata[agent_id]'),
      sent.form.get('line_items[0][price_data][unit_amount]'),
      sent.form.get('line_items[0][price_data][recurring][interval]'),
    ]).toEqual(['/v1/checkout/sessions', 'subscription', member.id, member.id, '100', 'month']);
    expect((await status(member)).status).toBe('unpaid');
  });

  it('activates on a verified webhook, once per event, recording the amount and no card data', async () => {
    const member = await join(society, 'payer');
    const event_id = 'evt_test_once';
    const object = {
      id: 'cs_x',
      object: 'checkout.session',
      customer: 'cus_payer',
      subscription: 'sub_payer',
      amount_total: 100,
      client_reference_id: member.id,
      metadata: { agent_id: member.id },
      payment_status: 'paid',
      customer_details: { email: 'payer@example.org' },
      payment_method_details: { card: { last4: '4242' } },
    };
    const first = await deliver('checkout.session.completed', object, { id: event_id });
    expect(first.body).toMatchObject({ received: true, fulfilled: true });
    const head = society.store.ledgerHead().seq;
    const again = await deliver('checkout.session.completed', object, { id: event_id });
    expect(again.body).toMatchObject({ received: true, fulfilled: false, duplicate: true });
    expect(society.store.ledgerHead().seq).toBe(head);
    expect(await status(member)).toMatchObject({
      status: 'active',
      payment_mode: 'test',
      payment_mode_current: true,
      billing_account: true,
    });
    const entry = (await request(url, `/api/v1/ledger?from=${head}&limit=1`)).body.entries[0];
    expect(entry).toMatchObject({
      event_type: 'payment_recorded',
      data: { agent_id: member.id, amount_cents: 100, event_id, status: 'active' },
    });
    // What the entry says (its hashes are hex and may hold any digits): no card number, no e-mail.
    const { hash, prev_hash, ...said } = entry;
    expect([hash, prev_hash].every((hex) => /^[0-9a-f]{64}$/.test(hex))).toBe(true);
    expect(JSON.stringify(said)).not.toMatch(/4242|payer@example/);
    await member.client.act('world_look', { radius: 2 });
    const twice = await refusal(checkout(member));
    expect([twice.status, twice.code]).toEqual([409, 'ALREADY_MEMBER']);
    expect((await member.client.signed<any>('POST', '/api/v1/membership/portal', undefined)).url).toContain('billing');
  });

  it('refuses a forged or stale signature with 400 before reading the event', async () => {
    const member = await join(society, 'forged');
    const forged = await deliver(
      'checkout.session.completed',
      { customer: 'cus_f', client_reference_id: member.id, metadata: { agent_id: member.id }, amount_total: 100 },
      { secret: 'whsec_not_the_secret' },
    );
    expect([forged.status, forged.body.error]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    const stale = await deliver(
      'checkout.session.completed',
      { customer: 'cus_f', client_reference_id: member.id, metadata: { agent_id: member.id }, amount_total: 100 },
      { timestamp: Math.floor(Date.now() / 1000) - 3600 },
    );
    expect([stale.status, stale.body.error]).toEqual([400, 'WEBHOOK_SIGNATURE_INVALID']);
    const unsigned = await request(url, '/api/v1/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(unsigned.status).toBe(400);
    expect((await status(member)).status).toBe('unpaid');
  });

  it('refuses a correctly signed body that is not a well-formed event with 400 WEBHOOK_EVENT_INVALID, recording nothing', async () => {
    const member = await join(society, 'malformed');
    const head = society.store.ledgerHead();
    const fulfilled = Object.keys(society.engine.state.payments.fulfilled).length;
    for (const [name, body] of Object.entries(malformedEvents(member.id))) {
      const answer = await sendSignedWebhook(url, JSON.stringify(body));
      expect([name, answer.status, answer.body.error]).toEqual([name, 400, 'WEBHOOK_EVENT_INVALID']);
    }
    const not_json = await sendSignedWebhook(url, '{"id": "evt_test_cut_short", "type": "invoice.paid"');
    expect([not_json.status, not_json.body.error]).toEqual([400, 'WEBHOOK_EVENT_INVALID']);
    await society.engine.drain();
    expect(society.store.ledgerHead()).toEqual(head);
    expect(Object.keys(society.engine.state.payments.fulfilled).length).toBe(fulfilled);
    expect((await status(member)).status).toBe('unpaid');
  });

  it('acknowledges a well-formed event of a type it does not act on, once, with no effect on membership', async () => {
    const member = await join(society, 'unknowntype');
    const first = await deliver(
      'charge.dispute.created',
      { object: 'dispute', customer: `cus_${member.id}`, metadata: { agent_id: member.id } },
      { id: 'evt_test_unknown_type' },
    );
    expect([first.status, first.body]).toMatchObject([200, { received: true }]);
    const again = await deliver('charge.dispute.created', { object: 'dispute' }, { id: 'evt_test_unknown_type' });
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    expect((await status(member)).status).toBe('unpaid');
  });

  it('refuses a compressed webhook body with 415 before checking its signature', async () => {
    const head = society.store.ledgerHead().seq;
    const answer = await sendSignedWebhook(
      url,
      JSON.stringify({ id: 'evt_test_gzip', type: 'invoice.paid', livemode: false, data: { object: {} } }),
      { headers: { 'content-encoding': 'gzip' } },
    );
    expect([answer.status, answer.body.error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(society.store.ledgerHead().seq).toBe(head);
  });

  it('lapses on a failed invoice, renews on a paid one, and ends on subscription deletion', async () => {
    const member = await join(society, 'subscriber');
    await paid(member, 'cus_sub');
    expect((await status(member)).status).toBe('active');
    await deliver('invoice.payment_failed', { object: 'invoice', customer: 'cus_sub', amount_paid: 0 });
    expect((await status(member)).status).toBe('unpaid');
    await deliver('invoice.paid', { object: 'invoice', customer: 'cus_sub', amount_paid: 100 });
    expect((await status(member)).status).toBe('active');
    await deliver('customer.subscription.deleted', {
      object: 'subscription',
      id: 'sub_x',
      customer: 'cus_sub',
      status: 'canceled',
      metadata: { agent_id: member.id },
    });
    expect((await status(member)).status).toBe('unpaid');
    expect((await checkout(member)).session.amount_cents).toBe(100);
  });

  it('ignores an event from the other mode, refuses the portal without a billing account, and answers 502 when the processor fails', async () => {
    const member = await join(society, 'mismatch');
    const live = await deliver(
      'checkout.session.completed',
      { customer: 'cus_live', client_reference_id: member.id, metadata: { agent_id: member.id }, amount_total: 100 },
      { livemode: true },
    );
    expect(live.body).toMatchObject({ received: true, fulfilled: false });
    expect((await status(member)).status).toBe('unpaid');
    const portal = await refusal(member.client.signed('POST', '/api/v1/membership/portal', undefined));
    expect([portal.status, portal.code]).toEqual([409, 'NO_BILLING_ACCOUNT']);
    fake.failNext();
    fake.failNext();
    const outage = await refusal(checkout(member));
    expect([outage.status, outage.code]).toEqual([502, 'PAYMENT_PROVIDER_UNAVAILABLE']);
  });

  it('reopens checkout when the recorded payment is from the other mode (test against live)', async () => {
    const member = await join(society, 'modeswitch');
    await paid(member, 'cus_modeswitch');
    expect((await status(member)).status).toBe('active');
    await society.close();
    society = await startPaid('sk_live_tessera');
    url = society.url;
    member.client = new TesseraClient(url, member.key);
    expect(await status(member)).toMatchObject({
      payments: 'live',
      status: 'unpaid',
      payment_mode: 'test',
      payment_mode_current: false,
    });
    expect((await checkout(member)).session.amount_cents).toBe(100);
  });
});

describe('payments off', () => {
  let off: TestSociety;
  beforeAll(async () => {
    off = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  });
  afterAll(async () => off.destroy());

  it('makes every registered agent an active member and answers checkout with 409 PAYMENTS_OFF', async () => {
    const member = await join(off, 'free');
    expect(await member.client.signed<any>('GET', '/api/v1/membership/status', undefined)).toMatchObject({
      status: 'active',
      payments: 'off',
      payment_mode_current: true,
    });
    const error = await refusal(member.client.signed('POST', '/api/v1/membership/checkout', undefined));
    expect([error.status, error.code]).toEqual([409, 'PAYMENTS_OFF']);
  });
});
