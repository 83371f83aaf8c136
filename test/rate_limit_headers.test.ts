import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollingAllowance } from '../engine/rolling_limit.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { TesseraClient } from '../client/sdk.js';
import { join, refusal, type Member } from './helpers/world.js';

const headersOf = (response: Response) => ({
  limit: response.headers.get('ratelimit-limit'),
  remaining: response.headers.get('ratelimit-remaining'),
  reset: response.headers.get('ratelimit-reset'),
});

describe('rate-limit headers on reads', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({
      genesis: { world_seed: 'world-tests' },
      config: {
        read_limits: { reads_per_second: 1, burst_reads: 4 },
        nonce_limits: { nonces_per_second: 1, burst_nonces: 2 },
      },
    });
  });
  afterAll(() => society.destroy());

  it('says the allowance, what is left and when it is whole again, down to the 429', async () => {
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(headersOf(await fetch(`${society.url}/api/v1/status`)));
    expect(seen.map((h) => [h.limit, h.remaining])).toEqual([
      ['4', '3'],
      ['4', '2'],
      ['4', '1'],
      ['4', '0'],
    ]);
    expect(Number(seen[3]!.reset)).toBe(4);
    const refused = await fetch(`${society.url}/api/v1/status`);
    expect([refused.status, headersOf(refused).remaining, refused.headers.get('retry-after')]).toEqual([429, '0', '1']);
    society.advance(4000);
    const tile = await fetch(`${society.url}/log/tile/entries/000.p/1`);
    expect([tile.status, headersOf(tile)]).toEqual([200, { limit: '4', remaining: '3', reset: '1' }]);
  });

  it('says it on the nonce route, under its own limit', async () => {
    const response = await fetch(`${society.url}/api/v1/nonce?agent=ag_${'0'.repeat(32)}`);
    expect(headersOf(response)).toEqual({ limit: '2', remaining: '1', reset: '1' });
  });
});

describe('rate-limit headers on acts under a rolling rule', () => {
  let society: TestSociety;
  let ada: Member;
  /** Ada's client, keeping the headers of the act answer it last received. */
  let client: TesseraClient;
  let last: Response | undefined;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    ada = await join(society, 'ada');
    client = new TesseraClient(society.url, ada.key, async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith('/api/v1/act')) last = response;
      return response;
    });
  });
  const send = (body: string) => client.act('aether_send', { body, scope: 'auto', route: 'global' });
  afterAll(() => society.destroy());

  it('counts Aether messages down to the refusal, which says when the next is allowed', async () => {
    const per_minute = society.engine.state.params.aether_messages_per_minute_max;
    const remaining: string[] = [];
    for (let i = 0; i < per_minute; i++) {
      await send(`hello ${i}`);
      expect(last!.headers.get('ratelimit-limit')).toBe(String(per_minute));
      remaining.push(last!.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(Array.from({ length: per_minute }, (_, i) => String(per_minute - 1 - i)));
    society.advance(10_000);
    const refused = await refusal(send('one too many'));
    expect([refused.status, refused.code]).toEqual([429, 'RATE_LIMITED']);
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: '0', reset: '50' });
    expect(last!.headers.get('retry-after')).toBe('50');
  });

  it('says when the allowance is whole again while some is left, and when one more is allowed once none is', async () => {
    const per_minute = society.engine.state.params.aether_messages_per_minute_max;
    society.advance(60_000); // every earlier message out of the window
    await send('first');
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: String(per_minute - 1), reset: '60' });
    society.advance(20_000);
    await send('second');
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: String(per_minute - 2), reset: '60' });
    society.advance(15_000);
    for (let i = 2; i < per_minute; i++) await send(`more ${i}`);
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: '0', reset: '60' });
    society.advance(5_000);
    const refused = await refusal(send('one too many'));
    expect([refused.status, refused.code]).toEqual([429, 'RATE_LIMITED']);
    // The first leaves the window in 20 s (one more then); the newest in 55 s (all of it then).
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: '0', reset: '55' });
    expect(last!.headers.get('retry-after')).toBe('20');
    society.advance(20_000);
    await send('after the first left');
    expect(headersOf(last!)).toEqual({ limit: String(per_minute), remaining: '0', reset: '60' });
  });

  it('leaves acts under no such rule without the headers', async () => {
    await client.act('world_look', { radius: 0 });
    expect([last!.status, last!.headers.get('ratelimit-limit')]).toEqual([200, null]);
  });
});

describe('a rolling allowance', () => {
  it('frees one use as the oldest counted leaves the window, even when a lowered limit left it over', () => {
    expect(rollingAllowance([], 1000, 60_000, 3)).toEqual({
      limit: 3,
      remaining: 3,
      reset_seconds: 0,
      next_seconds: 0,
    });
    expect(rollingAllowance([0, 10_000, 20_000], 30_000, 60_000, 3)).toEqual({
      limit: 3,
      remaining: 0,
      reset_seconds: 50,
      next_seconds: 30,
    });
    // Some left: one more now, the whole allowance once the newest use has left the window.
    expect(rollingAllowance([0, 10_000], 30_000, 60_000, 3)).toEqual({
      limit: 3,
      remaining: 1,
      reset_seconds: 40,
      next_seconds: 0,
    });
    // Five uses under a limit lowered to 2: three must leave before one more is allowed.
    expect(rollingAllowance([0, 1000, 2000, 3000, 4000], 5000, 60_000, 2)).toEqual({
      limit: 2,
      remaining: 0,
      reset_seconds: 59,
      next_seconds: 58,
    });
    // A use exactly one window old no longer counts.
    expect(rollingAllowance([0], 60_000, 60_000, 1)).toEqual({
      limit: 1,
      remaining: 1,
      reset_seconds: 0,
      next_seconds: 0,
    });
  });
});
