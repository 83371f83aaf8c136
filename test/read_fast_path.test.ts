import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countdownsSteady } from '../api/motion_list_answer.js';
import { railOf } from '../api/pages/frame.js';
import { NAV_LINKS, PAGE_CATALOGUE } from '../api/pages/page_catalogue.js';
import { ledgerReaderOf } from '../api/read_context.js';
import { motionView } from '../engine/governance/motion_rules.js';
import { motionList, type ReadContext, type SocietyState } from '../engine/index.js';
import { ledgerRead } from '../engine/reads/ledger.js';
import { PAGE_END } from '../render/layout.js';
import { DECLINED, fastOnly, serve } from './helpers/fast_path.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

let society: TestSociety;
let members: Member[];

let fast: { url: string; close(): Promise<void> };
let general: { url: string; close(): Promise<void> };

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  members = [];
  for (const handle of ['ada', 'bob', 'cyd']) members.push(await join(society, handle));
  // Only members who have acted before a motion is filed count toward its quorum.
  for (const member of members) await member.client.act('bulletin_post', { title: 'Hello', body: 'Here.' });
  fast = await serve(fastOnly(society.paths));
  general = await serve(society.paths.general);
});
afterAll(async () => {
  await fast?.close();
  await general?.close();
  await society?.destroy();
});
afterEach(() => expect(society.bugs).toEqual([]));

/** What a view sees now, made here: none of the app's caches or its vitals fold. */
function contextNow(): ReadContext {
  return {
    state: society.engine.state,
    at_ms: society.now(),
    ledger: ledgerReaderOf(society.store),
    chunks: undefined as never,
    host: { started_at_ms: 0, queue_depth: 0, log: () => undefined as never, receipt: () => undefined },
  };
}

const home = PAGE_CATALOGUE.find((page) => page.path === '/')!;

/** The front page rendered afresh from the catalogue's declaration, without its watchers line. */
function freshHomeBeforeWatchers(): string {
  const context = contextNow();
  const view = home.view(context, {})!;
  const frame = {
    title: home.heading!(view),
    nav: NAV_LINKS,
    now_ms: context.at_ms,
    rail: railOf(society.engine, society.store),
  };
  return home.html(frame, view).slice(0, -PAGE_END.length);
}

/** Headers of the server rather than of the answer: the time, and the test listeners' own keep-alive timeout. */
const SERVER_HEADERS = new Set(['date', 'keep-alive']);
/** What is left of the read allowance moves with every read: both paths must say it, each with its own count. */
const ALLOWANCE_LEFT = new Set(['ratelimit-remaining', 'ratelimit-reset']);

/**
 * Status, headers (but the server's) and body, as compared between the two paths. A new
 * visitor's id, its signature and the cookie's expiry differ per request: they are
 * replaced by placeholders here (the cookie's bytes are held equal in visitor_cookie.test.ts).
 */
async function answerOf(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const anonymous = (text: string) =>
    text
      .replace(/v_[0-9a-f]{16}/g, 'v_ID')
      .replace(/\.sig=[A-Za-z0-9_-]+/g, '.sig=SIG')
      .replace(/expires=[^;]+/g, 'expires=DATE');
  // A compressed page's length varies with the visitor's id: its body is compared decoded.
  const encoded = response.headers.has('content-encoding');
  const headers = [...response.headers]
    .filter(([name]) => !SERVER_HEADERS.has(name) && !(encoded && name === 'content-length'))
    .map(([name, value]): [string, string | boolean] => [
      name,
      ALLOWANCE_LEFT.has(name) ? /^\d+$/.test(value) : anonymous(value),
    ]);
  return { status: response.status, headers, body: anonymous(await response.text()) };
}

/**
 * The server pulses the engine on a timer, which may close a motion the test clock made due
 * at any moment: what is compared is taken again until nothing ticked while it was taken.
 */
async function unticked<T>(take: () => Promise<T>): Promise<T> {
  const version = () => `${society.engine.state.tick} ${society.store.ledgerHead().hash}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = version();
    const taken = await take();
    if (version() === before) return taken;
  }
  throw new Error('the society ticked during every attempt');
}

/** The same request to the fast path alone (which must answer it), to Koa alone and to the server. */
async function expectSameAnswers(path: string, init: RequestInit = {}) {
  const [by_fast, by_koa, by_server] = await unticked(() =>
    Promise.all([
      answerOf(`${fast.url}${path}`, init),
      answerOf(`${general.url}${path}`, init),
      answerOf(`${society.url}${path}`, init),
    ]),
  );
  expect(by_fast.status, path).not.toBe(DECLINED);
  expect(by_fast, path).toEqual(by_koa);
  expect(by_fast, path).toEqual(by_server);
  return by_fast;
}

/** Every kept answer against the same answer made afresh, and against Koa's. */
async function checkReads(ledger_from: number, ledger_limit: number): Promise<void> {
  for (let i = 0; i < 2; i++) {
    // Twice: the second is answered from what the first kept.
    const page = await unticked(async () => {
      const response = await fetch(`${society.url}/`);
      return { response, html: await response.text(), fresh: freshHomeBeforeWatchers() };
    });
    const visitor_id = /tessera_visitor=(v_[0-9a-f]{16})/.exec(page.response.headers.getSetCookie().join('\n'))![1]!;
    const at = page.html.lastIndexOf('<aside class="watchers">');
    expect(page.html.slice(0, at)).toBe(page.fresh);
    expect(page.html.slice(at)).toMatch(
      new RegExp(`^<aside class="watchers"><p>Watching now: \\d+ \\(<code>${visitor_id}</code>`),
    );
    expect(page.html.endsWith(`</aside>${PAGE_END}`)).toBe(true);

    const motions = await unticked(async () => ({
      served: await (await fetch(`${society.url}/api/v1/motions`)).text(),
      fresh: JSON.stringify(motionList.view(contextNow(), { limit: 100 })),
    }));
    expect(motions.served).toBe(motions.fresh);

    const ledger = await unticked(async () => ({
      served: await (await fetch(`${society.url}/api/v1/ledger?from=${ledger_from}&limit=${ledger_limit}`)).json(),
      fresh: ledgerRead.view(contextNow(), { from: ledger_from, limit: ledger_limit }),
    }));
    expect(ledger.served).toEqual(ledger.fresh);
  }
  await expectSameAnswers('/');
  await expectSameAnswers('/api/v1/motions');
  await expectSameAnswers(`/api/v1/ledger?from=${ledger_from}&limit=${ledger_limit}`);
}

type Step =
  | { kind: 'post' | 'propose' | 'open' | 'vote'; member: number; choice: number }
  | { kind: 'wait'; ms: number; pulse: boolean }
  | { kind: 'return'; visitor: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('post', 'propose', 'open', 'open', 'vote', 'vote', 'vote'),
    member: fc.nat(2),
    choice: fc.nat(2),
  }) as fc.Arbitrary<Step>,
  fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.nat(2_500), fc.nat(70_000)), pulse: fc.boolean() }),
  fc.record({ kind: fc.constant('return' as const), visitor: fc.nat(5) }),
);

/** Cookies of visitors seen so far, for a visitor that comes back (and is then counted as watching). */
const cookies: string[] = [];

async function take(step: Step): Promise<void> {
  const state = society.engine.state;
  if (step.kind === 'wait') {
    society.advance(step.ms);
    if (step.pulse) await society.engine.pulse();
    return;
  }
  if (step.kind === 'return') {
    if (cookies.length === 0) {
      const response = await fetch(`${society.url}/`);
      cookies.push(
        response.headers
          .getSetCookie()
          .map((line) => line.split(';')[0])
          .join('; '),
      );
      return;
    }
    await fetch(`${society.url}/`, { headers: { cookie: cookies[step.visitor % cookies.length]! } });
    return;
  }
  const member = members[step.member]!;
  const motions = Object.values(state.governance.motions);
  const act = async (name: string, payload: Record<string, unknown>) => {
    // A refusal (a motion in the wrong status, a repeated vote) is a step too: nothing changes.
    await member.client.act(name, payload).catch(() => undefined);
  };
  if (step.kind === 'post') await act('bulletin_post', { title: `Note ${state.tick}`, body: 'A <b>note</b> & more.' });
  if (step.kind === 'propose')
    await act('motion_propose', { title: `Motion ${state.tick}`, body: 'Why.', changes: [] });
  const draft = motions.filter((m) => m.status === 'draft' && m.author === member.id).at(-1);
  if (step.kind === 'open' && draft) await act('motion_open', { motion_id: draft.motion_id });
  const open = motions.filter((m) => m.status === 'open');
  if (step.kind === 'vote' && open.length > 0)
    await act('vote_cast', {
      motion_id: open[step.choice % open.length]!.motion_id,
      choice: ['aye', 'nay', 'abstain'][step.choice],
    });
}

describe('reads answered from what is kept between state changes', () => {
  it('answers the front page, the motion list and ledger pages as made afresh, across random acts and times', async () => {
    // First a motion through its whole life, for certain: filed, opened, voted on, counted down, closed.
    for (const kind of ['propose', 'open', 'vote'] as const) {
      await take({ kind, member: 0, choice: 0 });
      await checkReads(1, 100);
    }
    await take({ kind: 'wait', ms: 1_500, pulse: false });
    await checkReads(2, 7);
    await take({ kind: 'wait', ms: 61_000, pulse: true });
    await checkReads(3, 50);
    expect(Object.values(society.engine.state.governance.motions).map((m) => m.status)).toEqual(['failed']);
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 4, maxLength: 16 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 120 }),
        async (steps, from, limit) => {
          for (const one of steps) {
            await take(one);
            await checkReads(from, limit);
          }
        },
      ),
      { numRuns: 12 },
    );
    expect(cookies.length, 'a visitor came back').toBe(1);
  }, 240_000);

  it('leaves to Koa what is not the plain case, and the server then answers as Koa does', async () => {
    const declined: [string, RequestInit][] = [
      ['/', { method: 'HEAD' }],
      ['/?utm=1', {}],
      ['/', { headers: { cookie: 'other=1' } }],
      ['/api/v1/motions?status=open', {}],
      ['/api/v1/motions?limit=2', {}],
      ['/api/v1/ledger?from=0', {}],
      ['/api/v1/ledger?from=abc', {}],
      ['/api/v1/ledger?from=1&from=2', {}],
      ['/api/v1/ledger?from=%31', {}],
      ['/api/v1/ledger?limit=100000', {}],
      ['/api/v1/ledger?from=+1', {}],
      ['/api/v1/motions/', {}],
      ['/api/v1/ledger/', {}],
      ['/API/v1/motions', {}],
    ];
    for (const [path, init] of declined) {
      expect((await fetch(`${fast.url}${path}`, init)).status, path).toBe(DECLINED);
      expect(await answerOf(`${society.url}${path}`, init), path).toEqual(
        await answerOf(`${general.url}${path}`, init),
      );
    }
    // A plain query the read ignores in part, or takes with its defaults, is the fast path's.
    await expectSameAnswers('/api/v1/ledger');
    await expectSameAnswers('/api/v1/ledger?limit=3');
    await expectSameAnswers('/api/v1/ledger?from=2&limit=5&cache_buster=7');
    await expectSameAnswers('/api/v1/motions?');
  });

  it('counts fast answers in the same latency histogram, by route', async () => {
    const counted = async () => {
      const text = await (await fetch(`${society.url}/metrics`)).text();
      const line = text
        .split('\n')
        .find((row) =>
          row.startsWith('tessera_http_request_seconds_count{route="/api/v1/motions",method="GET",status="200"}'),
        );
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await counted();
    expect((await fetch(`${fast.url}/api/v1/motions`)).status).toBe(200);
    expect(await counted()).toBe(before + 1);
  });
});

describe('the motion list countdowns', () => {
  it('are the same at every time of the span countdownsSteady gives, and not just past its end', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (closings, at_ms, later) => {
          const motions = Object.fromEntries(
            closings.map((closes_at_ms, i) => [`M-${i}`, { status: 'open', closes_at_ms }]),
          );
          const state = { governance: { motions } } as unknown as SocietyState;
          const countdowns = (now: number) => closings.map((closes) => Math.max(0, Math.ceil((closes - now) / 1000)));
          const { from_ms, until_ms } = countdownsSteady(state, at_ms);
          expect(from_ms <= at_ms && at_ms < until_ms).toBe(true);
          const now = at_ms + later;
          if (now < until_ms) expect(countdowns(now)).toEqual(countdowns(at_ms));
          if (until_ms !== Infinity) expect(countdowns(until_ms)).not.toEqual(countdowns(at_ms));
          if (from_ms !== -Infinity) expect(countdowns(from_ms - 1)).not.toEqual(countdowns(at_ms));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('match motionView, the countdown the read shows', () => {
    const motion = { status: 'open', closes_at_ms: 90_500, opens_at_ms: 0, filed_at_ms: 0, enacted_at_ms: null };
    const view = (now: number) =>
      motionView({ ...motion, tally: { aye: 0, nay: 0, abstain: 0, participating: 0 } } as never, now)
        .voting_closes_in_seconds;
    expect([view(0), view(89_500), view(89_501), view(90_500), view(99_000)]).toEqual([91, 1, 1, 0, 0]);
    const state = { governance: { motions: { m: motion } } } as unknown as SocietyState;
    expect(countdownsSteady(state, 89_501)).toEqual({ from_ms: 89_500, until_ms: 90_500 });
  });
});
