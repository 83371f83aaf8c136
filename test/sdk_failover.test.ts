import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { OutcomeUnknownError, TesseraClient, TesseraError, UnreachableError } from '../client/sdk.js';
import { DEFAULT_RETRY_POLICY } from '../client/retry_policy.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

/** A clock that only the SDK's own waits move, so a failover of seconds takes none. */
function fakeClock(start_ms: number) {
  let now_ms = start_ms;
  return {
    now_ms: () => now_ms,
    sleep: async (ms: number) => {
      now_ms += ms;
    },
  };
}

/** One sending of a signed request, as it left the client. */
interface Sending {
  nonce: string | null;
  signature: string | null;
}

function sendingOf(init: RequestInit | undefined): Sending {
  const headers = new Headers(init?.headers);
  return { nonce: headers.get('x-nonce'), signature: headers.get('x-signature') };
}

const refusedConnection = () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });

const notLeader = () =>
  Response.json(
    { error: 'NOT_LEADER', message: 'No node holds the write lease.' },
    { status: 503, headers: { 'retry-after': '1' } },
  );

describe('the SDK through a failover, against a real society', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety();
  });
  afterAll(() => society.destroy());

  const backupsRegistered = (backup_pubkey: string) =>
    [...society.store.ledgerEntries(1)].filter(
      (entry) => entry.json.includes('"event_type":"key_backup_registered"') && entry.json.includes(backup_pubkey),
    ).length;

  /**
   * Between the client and the society, a failover starting at the first signed request: the
   * connection refused for 8 s, then NOT_LEADER twice, then the society itself. With
   * `applied_first`, the first sending reaches the society and only its answer is lost.
   */
  function failingOver(clock: { now_ms(): number }, options: { applied_first: boolean }) {
    const sendings: Sending[] = [];
    let started_ms: number | undefined;
    let not_leaders = 0;
    const fetcher: typeof fetch = async (input, init) => {
      if (init?.method !== 'POST') return fetch(input, init);
      sendings.push(sendingOf(init));
      if (started_ms === undefined) {
        started_ms = clock.now_ms();
        if (options.applied_first) await fetch(input, init);
        throw refusedConnection();
      }
      if (clock.now_ms() - started_ms < 8_000) throw refusedConnection();
      if (not_leaders++ < 2) return notLeader();
      return fetch(input, init);
    };
    return { fetcher, sendings };
  }

  it('rides through 8 s of refused connections and two NOT_LEADER, sending the same signature every time', async () => {
    const { key } = await join(society, 'rider');
    const clock = fakeClock(society.now());
    const { fetcher, sendings } = failingOver(clock, { applied_first: false });
    const client = new TesseraClient(society.url, key, fetcher, { clock });
    const backup = await generateKey();
    const answer = (await client.registerBackupKey(backup.public_key)) as { backup_pubkey: string };
    expect(answer.backup_pubkey).toBe(backup.public_key);
    // Refused at 0, 0.25, 0.75, 1.75, 3.75, 5.75 and 7.75 s; NOT_LEADER at 9.75 and 10.75 s; answered at 11.75 s.
    expect(sendings).toHaveLength(10);
    expect(new Set(sendings.map((sending) => sending.signature)).size).toBe(1);
    expect(new Set(sendings.map((sending) => sending.nonce)).size).toBe(1);
    expect(backupsRegistered(backup.public_key)).toBe(1);
  });

  it('gets the first answer of an act applied just before the leader died, and the act lands once', async () => {
    const { key } = await join(society, 'survivor');
    const clock = fakeClock(society.now());
    const { fetcher, sendings } = failingOver(clock, { applied_first: true });
    const client = new TesseraClient(society.url, key, fetcher, { clock });
    const backup = await generateKey();
    const answer = (await client.registerBackupKey(backup.public_key)) as { backup_pubkey: string };
    expect(answer.backup_pubkey).toBe(backup.public_key);
    expect(new Set(sendings.map((sending) => sending.signature)).size).toBe(1);
    expect(backupsRegistered(backup.public_key)).toBe(1);
  });
});

/**
 * A society the test scripts: nonces n1, n2... that expire 300 s after they are asked for
 * on the server's clock (the client's clock plus `server_clock_offset_ms`), and every signed sending
 * answered as `answer` says, given how many came before it.
 */
function scripted(
  clock: { now_ms(): number },
  answer: (sending_index: number) => Response,
  options: { server_clock_offset_ms?: number } = {},
) {
  const sendings: Sending[] = [];
  let nonces_issued = 0;
  const fetcher: typeof fetch = async (input, init) => {
    if (String(input).includes('/api/v1/nonce')) {
      const expires_at_ms = clock.now_ms() + (options.server_clock_offset_ms ?? 0) + 300_000;
      return Response.json({
        agent: 'ag',
        nonce: `n${++nonces_issued}`,
        expires_at: new Date(expires_at_ms).toISOString(),
      });
    }
    sendings.push(sendingOf(init));
    return answer(sendings.length - 1);
  };
  return { fetcher, sendings };
}

const nonceInvalid = () => Response.json({ error: 'NONCE_INVALID', message: 'Unknown nonce.' }, { status: 401 });
const done = () => Response.json({ act: 'world_move', result: {}, ledger: { first_seq: 9, last_seq: 9 } });

/** The sendings answered in turn, the last answer repeated; one that throws stands for an answer the network lost. */
function answers(...script: (() => Response)[]) {
  return (index: number) => script[Math.min(index, script.length - 1)]!();
}
const lost = () => {
  throw refusedConnection();
};

describe('the SDK after a refused nonce', () => {
  let key: AgentKey;
  beforeAll(async () => {
    key = await generateKey();
  });

  it('signs an act again, once, when a resend after a lost answer is refused while the nonce lives', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const { fetcher, sendings } = scripted(clock, answers(lost, nonceInvalid, done));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const answer = await client.act('world_move', { path: ['n'] });
    expect(answer.ledger.first_seq).toBe(9);
    expect(sendings.map((sending) => sending.nonce)).toEqual(['n1', 'n1', 'n2']);
  });

  it('hands over the refusal of the request it signed again, and signs no third', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const { fetcher, sendings } = scripted(clock, answers(lost, nonceInvalid));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const error = await client.act('world_move', { path: ['n'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TesseraError);
    expect((error as TesseraError).code).toBe('NONCE_INVALID');
    expect(sendings.map((sending) => sending.nonce)).toEqual(['n1', 'n1', 'n2']);
  });

  it('says the outcome is unknown, and signs nothing again, when the refusal came after the nonce expired', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    // The server's clock 280 s behind: the nonce expires 20 s from now here; the network is down for 25 s.
    const down_until_ms = clock.now_ms() + 25_000;
    const answer = () => (clock.now_ms() < down_until_ms ? lost() : nonceInvalid());
    const { fetcher, sendings } = scripted(clock, answer, { server_clock_offset_ms: -280_000 });
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const error = await client.act('world_move', { path: ['n'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(String(error)).toMatch(/outcome unknown.*expired.*ledger/s);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(TesseraError);
    expect(new Set(sendings.map((sending) => sending.nonce))).toEqual(new Set(['n1']));
  });

  it('never signs a payment route again after a lost answer', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const { fetcher, sendings } = scripted(clock, answers(lost, nonceInvalid, done));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const error = await client.signed('POST', '/api/v1/membership/checkout', undefined).catch((caught) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(String(error)).toMatch(/keeps no answer/);
    expect(sendings.map((sending) => sending.nonce)).toEqual(['n1', 'n1']);
  });

  it('signs a payment route again when its one sending was refused for its nonce: it was not applied', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const { fetcher, sendings } = scripted(clock, answers(nonceInvalid, done));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    await client.signed('POST', '/api/v1/membership/checkout', undefined);
    expect(sendings.map((sending) => sending.nonce)).toEqual(['n1', 'n2']);
  });

  it('says the outcome is unknown when a lost answer is followed by NOT_LEADER for the whole budget', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const { fetcher } = scripted(clock, answers(lost, notLeader));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const error = await client.act('world_move', { path: ['n'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(((error as OutcomeUnknownError).cause as TesseraError).code).toBe('NOT_LEADER');
    // With no answer lost, NOT_LEADER for the whole budget is only that: nothing was done.
    const never_lost = new TesseraClient('http://society.test', key, scripted(clock, answers(notLeader)).fetcher, {
      clock,
    });
    const refusal = await never_lost.act('world_move', { path: ['n'] }).catch((caught: unknown) => caught);
    expect((refusal as TesseraError).code).toBe('NOT_LEADER');
  });

  it('says the outcome is unknown when a lost answer is followed by nothing for the whole budget', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T10:00:00Z'));
    const started_ms = clock.now_ms();
    const { fetcher } = scripted(clock, answers(lost));
    const client = new TesseraClient('http://society.test', key, fetcher, { clock });
    const error = await client.act('world_move', { path: ['n'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(TypeError);
    expect(clock.now_ms() - started_ms).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.retry_budget_ms);
    // A read has no outcome to be unknown: the network's error, naming the URL and why, fetch's own as its cause.
    const unreachable: typeof fetch = async () => lost();
    const reader = new TesseraClient('http://society.test', undefined, unreachable, { clock });
    const failure = await reader.status().catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(UnreachableError);
    expect((failure as UnreachableError).message).toMatch(
      /^could not reach http:\/\/society\.test\/api\/v1\/status: connection refused.*\(ECONNREFUSED\)$/,
    );
    expect((failure as UnreachableError).code).toBe('ECONNREFUSED');
    expect((failure as UnreachableError).cause).toBeInstanceOf(TypeError);
    expect(((failure as UnreachableError).cause as Error).message).toBe('fetch failed');
  });
});

describe('a sending that gets no answer at all', () => {
  it('is given up after the sending timeout and sent again, the same request, instead of waiting on a frozen node', {
    timeout: 5000,
  }, async () => {
    const key = await generateKey();
    const sendings: Sending[] = [];
    // The first sending reaches a frozen leader: nothing comes back until the sending's own timeout aborts it.
    const fetcher: typeof fetch = async (_input, init) => {
      sendings.push(sendingOf(init));
      const signal = init?.signal;
      if (sendings.length === 1)
        return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
      return Response.json({ ok: true, nonce: 'n'.repeat(40) }, { status: 200 });
    };
    const client = new TesseraClient('http://society.test', key, fetcher, {
      retry_policy: { ...DEFAULT_RETRY_POLICY, sending_timeout_ms: 50 },
    });
    const started_ms = performance.now();
    await client.status();
    expect(sendings).toHaveLength(2);
    expect(performance.now() - started_ms).toBeLessThan(DEFAULT_RETRY_POLICY.retry_budget_ms);
  });
});
