import Stripe from 'stripe';
import { join, refusal } from './helpers/world.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake_stripe.js';

const WEBHOOK_SECRET = 'whsec_observer_tests';
const signer = new Stripe('sk_test_signing_only');

let fake: FakeStripe;
let society: TestSociety;
let url: string;

beforeAll(async () => {
  fake = await startFakeStripe();
  society = await startTestSociety({
    genesis: { world_seed: 'world-tests' },
    config: {
      payments: {
        secret_key: 'sk_test_observer',
        webhook_secret: WEBHOOK_SECRET,
        api_base: fake.url,
        public_url: 'http://society.test',
      },
    },
  });
  url = society.url;
});
afterAll(async () => {
  await society.destroy();
  await fake.close();
});
afterEach(() => expect(society.bugs).toEqual([]));

/** A browser's cookie jar, by hand: fetch keeps none. */
class Visitor {
  cookies = new Map<string, string>();

  async get(path: string, init: RequestInit = {}) {
    const response = await fetch(url + path, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      this.cookies.set(name!, value!);
    }
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      set_cookie: response.headers.getSetCookie(),
    };
  }

  get id(): string {
    return this.cookies.get('tessera_unwatched') ?? this.cookies.get('tessera_visitor')!;
  }
}

async function deliver(object: Record<string, unknown>) {
  const payload = JSON.stringify({
    id: `evt_${Math.random().toString(16).slice(2)}`,
    object: 'event',
    type: 'checkout.session.completed',
    livemode: false,
    api_version: '2026-01-01',
    created: 1,
    data: { object },
  });
  const response = await fetch(`${url}/api/v1/stripe/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    },
    body: payload,
  });
  expect(response.status).toBe(200);
}

describe('grant links', () => {
  it('lets the Founder issue a one-time link that takes its first holder off the display, recorded by hash only', async () => {
    const founder = await founderClient(society);
    const granted = await founder.signed<{ url: string }>('POST', '/api/v1/grants', {
      kind: 'observer',
      note: 'for the press',
    });
    const token = granted.url.split('/').pop()!;
    expect(granted.url).toBe(`http://society.test/access/grant/${token}`);
    const visitor = new Visitor();
    const redeemed = await visitor.get(`/access/grant/${token}`, { method: 'POST' });
    expect([redeemed.status, redeemed.text.includes('off the watchers display')]).toEqual([200, true]);
    expect((await new Visitor().get('/treasury')).text).not.toContain(visitor.id);
    const again = await new Visitor().get(`/access/grant/${token}`, { method: 'POST' });
    expect(again.status).toBe(410);
    expect((await new Visitor().get(`/access/grant/${token}`)).status).toBe(410);
    const ledger = JSON.stringify((await (await fetch(`${url}/api/v1/ledger?limit=1000`)).json()) as object);
    expect(ledger).toContain('grant_issued');
    expect(ledger).not.toContain(token);
    const member = await join(society, 'not-founder');
    const refused = await refusal(member.client.signed('POST', '/api/v1/grants', { kind: 'observer', note: '' }));
    expect([refused.status, refused.code]).toEqual([403, 'FOUNDER_ONLY']);
  });
});

describe('a grant link opened by a link preview', () => {
  async function issue(): Promise<string> {
    const founder = await founderClient(society);
    const granted = await founder.signed<{ url: string }>('POST', '/api/v1/grants', { kind: 'observer', note: '' });
    return granted.url.split('/').pop()!;
  }
  const redemptions = async () =>
    (
      (await (await fetch(`${url}/api/v1/ledger?limit=1000`)).json()) as { entries: { event_type: string }[] }
    ).entries.filter((entry) => entry.event_type === 'grant_redeemed').length;

  it('spends nothing on GET: the page offers the grant with a button that posts back, allowed by its own policy only', async () => {
    const token = await issue();
    const before = await redemptions();
    const preview = await new Visitor().get(`/access/grant/${token}`);
    const second_preview = await new Visitor().get(`/access/grant/${token}`);
    expect([preview.status, second_preview.status]).toEqual([200, 200]);
    expect(await redemptions()).toBe(before);
    expect(preview.text).toContain(`<form method="post" action="/access/grant/${token}">`);
    expect(preview.headers.get('cache-control')).toBe('no-store');
    expect(preview.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(preview.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect((await new Visitor().get('/treasury')).headers.get('content-security-policy')).toContain(
      "form-action 'none'",
    );
    const person = new Visitor();
    await person.get(`/access/grant/${token}`);
    expect((await person.get(`/access/grant/${token}`, { method: 'POST' })).status).toBe(200);
    expect(await redemptions()).toBe(before + 1);
  });

  it('refuses a post another site makes, and the grant stays to be taken', async () => {
    const token = await issue();
    const before = await redemptions();
    const forged = await new Visitor().get(`/access/grant/${token}`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect([forged.status, await redemptions()]).toEqual([403, before]);
    expect((await new Visitor().get(`/access/grant/${token}`)).status).toBe(200);
    const taken = await new Visitor().get(`/access/grant/${token}`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect([taken.status, await redemptions()]).toEqual([200, before + 1]);
  });

  it('answers 410 for a token of the wrong shape or one never issued, by GET or POST', async () => {
    for (const token of ['short', 'A'.repeat(32)]) {
      expect((await new Visitor().get(`/access/grant/${token}`)).status).toBe(410);
      expect((await new Visitor().get(`/access/grant/${token}`, { method: 'POST' })).status).toBe(410);
    }
  });
});

describe('the watchers line', () => {
  const countOf = (html: string) => /Watching now: (\d+)/.exec(html)?.[1];

  it('counts a visitor once its cookie comes back, never a client that keeps none, and names at most three', async () => {
    const regulars = Array.from({ length: 5 }, () => new Visitor());
    for (const visitor of regulars) {
      await visitor.get('/treasury');
      await visitor.get('/treasury');
    }
    society.advance(2_000);
    const before = Number(countOf((await regulars[0]!.get('/treasury')).text));
    expect(before).toBeGreaterThanOrEqual(5);
    // Fifty requests without cookies, as curl or a crawler makes them: none of them is a watcher.
    for (let i = 0; i < 50; i++) await new Visitor().get('/treasury');
    society.advance(2_000);
    const line = (await regulars[0]!.get('/treasury')).text;
    expect(Number(countOf(line))).toBe(before);
    const aside = /<aside class="watchers">(.*?)<\/aside>/s.exec(line)![1]!;
    expect((aside.match(/<code>/g) ?? []).length).toBe(3);
    expect(aside).toContain(`<code>${regulars[0]!.id}</code>`);
    expect(aside).toMatch(/and \d+ more/);
  });
});

describe('the Unwatched Observer', () => {
  it('gives a visitor a signed, HttpOnly, SameSite=Lax id and shows who is watching after the notice', async () => {
    const visitor = new Visitor();
    const page = await visitor.get('/treasury');
    expect(page.status).toBe(200);
    expect(page.set_cookie.find((c) => c.startsWith('tessera_visitor='))).toMatch(/httponly/i);
    expect(page.set_cookie.find((c) => c.startsWith('tessera_visitor='))).toMatch(/samesite=lax/i);
    expect(page.set_cookie.some((c) => c.startsWith('tessera_visitor.sig='))).toBe(true);
    expect(page.text.indexOf('Notice:')).toBeLessThan(page.text.indexOf('<h1>'));
    expect(page.text).toContain(visitor.id);
    const offer = await visitor.get('/treasury/observer');
    expect(offer.text).toContain('buys nothing else');
    expect(offer.text).toContain('href="/treasury/observer/checkout"');
    expect(offer.text).not.toContain('<form');
  });

  it('grants nothing on the success page until the webhook records the payment, then takes the visitor off the display', async () => {
    const visitor = new Visitor();
    await visitor.get('/treasury');
    const checkout = await visitor.get('/treasury/observer/checkout');
    expect(checkout.status).toBe(303);
    expect(checkout.headers.get('location')).toContain('checkout.stripe.test');
    const sent = fake.requests.at(-1)!;
    expect([
      sent.form.get('mode'),
      sent.form.get('metadata[observer_id]'),
      sent.form.get('client_reference_id'),
    ]).toEqual(['payment', visitor.id, visitor.id]);

    const early = await visitor.get(`/treasury/observer/success?observer=${visitor.id}`);
    expect(early.text).toContain('nothing changed');
    expect(visitor.cookies.has('tessera_unwatched')).toBe(false);

    await deliver({
      id: 'cs_observer',
      object: 'checkout.session',
      mode: 'payment',
      amount_total: 300,
      client_reference_id: visitor.id,
      metadata: { observer_id: visitor.id },
      payment_status: 'paid',
    });
    const done = await visitor.get(`/treasury/observer/success?observer=${visitor.id}`);
    expect(done.text).toContain('off the watchers display');
    expect(visitor.cookies.has('tessera_unwatched')).toBe(true);
    const other = new Visitor();
    const seen_by_other = await other.get('/treasury');
    expect(seen_by_other.text).not.toContain(visitor.id);
    expect(seen_by_other.text).toContain(other.id);
  });

  it('answers every failed recovery the same way, a malformed body included, and never logs the session id', async () => {
    const visitor = new Visitor();
    await visitor.get('/treasury');
    const session = (await (
      await fetch(`${url}/treasury/observer/checkout`, {
        method: 'POST',
        headers: { cookie: [...visitor.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      })
    ).json()) as { url: string };
    const session_id = String(session.url).split('/').pop()!;
    const attempts = [
      '{not json',
      '',
      '{}',
      '{"session_id": 42}',
      '{"session_id": "cs_unknown_1"}',
      JSON.stringify({ session_id }),
    ];
    const answers = [];
    for (const body of attempts) {
      const response = await fetch(`${url}/treasury/observer/recover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      answers.push({ status: response.status, body: await response.text() });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.status).toBe(403);
    expect(JSON.parse(answers[0]!.body).error).toBe('RECOVERY_FAILED');

    // Paid at the processor but not yet recorded by the webhook: still refused, the same way.
    fake.markPaid(session_id);
    const unrecorded = await fetch(`${url}/treasury/observer/recover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id }),
    });
    expect({ status: unrecorded.status, body: await unrecorded.text() }).toEqual(answers[0]);

    await deliver({
      id: session_id,
      object: 'checkout.session',
      mode: 'payment',
      amount_total: 300,
      client_reference_id: visitor.id,
      metadata: { observer_id: visitor.id },
      payment_status: 'paid',
    });
    const recovered = await fetch(`${url}/treasury/observer/recover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id }),
    });
    expect(recovered.status).toBe(200);
    expect(await recovered.json()).toEqual({ recovered: true, observer_id: visitor.id });
    expect(recovered.headers.getSetCookie().some((c) => c.startsWith('tessera_unwatched='))).toBe(true);
    expect(society.logs.some((line) => line.includes('"outcome":"recovered"'))).toBe(true);
    expect(society.logs.join('\n')).not.toContain(session_id);
  });

  it('reflects the agent on the success page escaped, and grants nothing there', async () => {
    const page = await new Visitor().get('/treasury/success?agent=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('grants nothing');
  });
});
