import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

const remainingOf = (response: Response) => Number(response.headers.get('ratelimit-remaining'));

/** One POST /mcp of `count` ledger_read calls, as a JSON-RPC batch. */
function ledgerBatch(url: string, count: number): Promise<Response> {
  const batch = Array.from({ length: count }, (_, index) => ({
    jsonrpc: '2.0',
    id: index + 1,
    method: 'tools/call',
    params: { name: 'ledger_read', arguments: { from: 1, limit: 1000 } },
  }));
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(batch),
  });
}

/** What the client has left after one read of a line (which costs one). */
async function remainingAfterOneRead(url: string): Promise<number> {
  return remainingOf(await fetch(`${url}/log/key`));
}

describe('a POST /mcp batch', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({
      genesis: { world_seed: 'world-tests' },
      config: {
        // The clock stands still in tests: nothing refills, so every read's cost shows in RateLimit-Remaining.
        read_limits: { reads_per_second: 1, burst_reads: 60, cpu_ms_per_read: 10_000, bytes_per_read: 1024 * 1024 },
        mcp_limits: { batch_calls_max: 16, batch_answer_bytes_max: 20_000 },
      },
    });
    for (const handle of ['ada', 'grace', 'alan', 'edsger']) await join(society, handle);
  });
  afterAll(() => society.destroy());

  it('of more calls than a batch may hold is refused whole, with the limit named, and spends nothing', async () => {
    const before = await remainingAfterOneRead(society.url);
    const refused = await ledgerBatch(society.url, 100);
    const body = (await refused.json()) as any;
    expect(refused.status).toBe(413);
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { error: 'BATCH_TOO_LARGE', batch_calls_max: 16 } },
    });
    expect(body.error.message).toContain('at most 16');
    expect(await remainingAfterOneRead(society.url)).toBe(before - 1);
  });

  it('is charged one read for each call at least, and its answers stop at the bytes a batch may answer', async () => {
    const before = await remainingAfterOneRead(society.url);
    const answered = await ledgerBatch(society.url, 16);
    expect(answered.status).toBe(200);
    const results = (await answered.json()) as {
      id: number;
      result: { isError?: boolean; content: { text: string }[] };
    }[];
    expect(results).toHaveLength(16);
    const refused = results.filter((result) => result.result.isError);
    const served = results.filter((result) => !result.result.isError);
    // Each served answer is the whole ledger (a few KiB): the batch stops once 20,000 bytes are answered.
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const served_bytes = served.reduce((sum, result) => sum + result.result.content[0]!.text.length, 0);
    const one = served[0]!.result.content[0]!.text.length;
    expect(served_bytes).toBeLessThan(20_000 + one);
    for (const result of refused) expect(JSON.parse(result.result.content[0]!.text).error).toBe('BATCH_TOO_LARGE');
    expect(remainingOf(answered)).toBe(before - 16);
    expect(await remainingAfterOneRead(society.url)).toBeLessThanOrEqual(before - 16 - 1);
    expect(await remainingAfterOneRead(society.url)).toBeGreaterThanOrEqual(before - 40);
  });

  it('that costs more than the client has left is refused whole with Retry-After, answering nothing', async () => {
    // Spend down to fewer reads than a batch of 16 needs.
    while ((await remainingAfterOneRead(society.url)) > 10);
    const before = await remainingAfterOneRead(society.url);
    const refused = await ledgerBatch(society.url, 16);
    const body = (await refused.json()) as any;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(body).toMatchObject({ id: null, error: { code: -32000, data: { error: 'RATE_LIMITED' } } });
    expect(await remainingAfterOneRead(society.url)).toBe(before - 1);
  });
});

describe('reads weighed by what they cost', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({
      genesis: { world_seed: 'world-tests' },
      config: {
        read_limits: { reads_per_second: 1, burst_reads: 100_000, cpu_ms_per_read: 10_000, bytes_per_read: 1024 },
      },
    });
    for (const handle of ['ada', 'grace', 'alan']) await join(society, handle);
  });
  afterAll(() => society.destroy());

  it('spend a read for every started bytes_per_read of answer, on the fast path and through Koa alike', async () => {
    for (const path of ['/api/v1/ledger?from=1&limit=1000', '/api/v1/ledger?from=1&limit=999', '/api/v1/status']) {
      const before = await remainingAfterOneRead(society.url);
      const answer = await fetch(`${society.url}${path}`);
      const bytes = (await answer.arrayBuffer()).byteLength;
      expect([path, before - remainingOf(answer)]).toEqual([path, Math.max(1, Math.ceil(bytes / 1024))]);
    }
  });

  it('spend a read for every started cpu_ms_per_read of the CPU a read took', async () => {
    const weighed = await startTestSociety({
      genesis: { world_seed: 'world-tests' },
      config: {
        read_limits: { reads_per_second: 1, burst_reads: 100_000_000, cpu_ms_per_read: 0.001, bytes_per_read: 1e9 },
      },
    });
    try {
      const first = remainingOf(await fetch(`${weighed.url}/api/v1/status`));
      const second = remainingOf(await fetch(`${weighed.url}/api/v1/status`));
      // A status read takes well over a microsecond of CPU: it costs many reads, not one.
      expect(first - second).toBeGreaterThan(10);
    } finally {
      await weighed.destroy();
    }
  });
});
