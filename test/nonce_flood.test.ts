import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { HEADER_NEXT_NONCE } from '../client/protocol.js';
import { TesseraClient } from '../client/sdk.js';
import { LoopbackClient, pipelinedGets } from './helpers/http_from.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The heap the server can be blamed for: what survives a full collection. */
function heapUsedAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const MB = 1024 * 1024;
/**
 * Requests in the victim's name. Past the 800 of the eight addresses' bursts every one is
 * refused, so a flood of this size is already 98% refusals: a bigger one adds minutes, not cases.
 */
const FLOOD_REQUESTS = 60_000;

/** `total` nonce requests spread over `clients` addresses (127.0.1.x), pipelined; the statuses they got, counted. */
async function nonceFlood(
  url: string,
  total: number,
  clients: number,
  agentOf: (i: number) => string,
): Promise<Map<number, number>> {
  const share = Math.ceil(total / clients);
  const counts = await Promise.all(
    Array.from({ length: clients }, (_, client) =>
      pipelinedGets(
        url,
        `127.0.1.${client + 1}`,
        (i) => `/api/v1/nonce?agent=${agentOf(client * share + i)}`,
        Math.min(share, total - client * share),
      ),
    ),
  );
  const statuses = new Map<number, number>();
  for (const count of counts) for (const [status, n] of count) statuses.set(status, (statuses.get(status) ?? 0) + n);
  return statuses;
}

const backupKeyAct = async () => ({
  act: 'key_backup_register',
  challenge_id: null,
  puzzle_solution: null,
  payload: { backup_pubkey: (await generateKey()).public_key },
});

describe("a nonce flood in the victim's name", () => {
  let society: TestSociety;
  let victim_key: AgentKey;

  beforeAll(async () => {
    // The shipped defaults: each flooding address is refused after its burst.
    society = await startTestSociety({ config: { nonce_limits: { nonces_per_second: 20, burst_nonces: 100 } } });
    victim_key = await generateKey();
    await new TesseraClient(society.url, victim_key).register('victim');
  });
  afterAll(async () => society.destroy());

  it('locks nobody out and holds no memory for what it asked: 60,000 requests while the victim keeps acting', {
    timeout: 180_000,
  }, async () => {
    const victim = new LoopbackClient(society.url, '127.0.0.2');
    // Fetched before the flood and held through it: the flood must not push it out.
    const held = await victim.nonce(victim_key.agent_id);
    const spent_before = society.nonces.spent_count;
    const heap_before = heapUsedAfterGc();

    let flooding = true;
    const flood_started_ms = performance.now();
    const flood = nonceFlood(society.url, FLOOD_REQUESTS, 8, () => victim_key.agent_id).finally(
      () => (flooding = false),
    );
    const outcomes: number[] = [];
    try {
      let handed_over: string | undefined;
      let fetched_at_ms = 0;
      while (flooding || outcomes.length < 20) {
        // A freshly fetched nonce every 100 ms (within the victim's own limit), else the one the last answer handed over.
        const fetch_now = !handed_over || performance.now() - fetched_at_ms >= 100;
        if (fetch_now) fetched_at_ms = performance.now();
        const nonce = fetch_now ? await victim.nonce(victim_key.agent_id) : handed_over!;
        const answer = await victim.signed('/api/v1/act', await backupKeyAct(), victim_key, nonce);
        outcomes.push(answer.status);
        handed_over = answer.headers[HEADER_NEXT_NONCE] as string | undefined;
      }
    } finally {
      // However the victim fared, the flood ends before the server does.
      await flood.catch(() => undefined);
    }
    const statuses = await flood;
    const flood_seconds = (performance.now() - flood_started_ms) / 1000;
    const last = await victim.signed('/api/v1/act', await backupKeyAct(), victim_key, held);
    outcomes.push(last.status);
    const heap_after = heapUsedAfterGc();
    victim.close();

    console.log(
      `nonce flood: ${JSON.stringify(Object.fromEntries(statuses))}, victim acts ${outcomes.length}, heap ${(heap_before / MB).toFixed(1)} -> ${(heap_after / MB).toFixed(1)} MB`,
    );
    expect([...statuses.values()].reduce((sum, count) => sum + count, 0)).toBe(FLOOD_REQUESTS);
    // Each flooding address got its burst of nonces in the victim's name and what its rate refilled while the flood lasted; the rest were refused.
    expect(statuses.get(200)).toBeGreaterThanOrEqual(8 * 100);
    expect(statuses.get(200)).toBeLessThanOrEqual(8 * (100 + Math.ceil(20 * flood_seconds)));
    expect(statuses.get(429)).toBe(FLOOD_REQUESTS - statuses.get(200)!);
    expect(outcomes.filter((status) => status !== 200)).toEqual([]);
    // Only the victim's own acts left anything behind.
    expect(society.nonces.spent_count - spent_before).toBe(outcomes.length);
    expect(heap_after - heap_before).toBeLessThan(8 * MB);
    expect(society.bugs).toEqual([]);
  });
});

describe('a nonce flood for made-up ids, unlimited', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({
      config: { nonce_limits: { nonces_per_second: 1_000_000, burst_nonces: 1_000_000 } },
    });
  });
  afterAll(async () => society.destroy());

  it('issues every nonce and keeps none of them', { timeout: 120_000 }, async () => {
    // Warm the route so that what is measured is the flood, not first-use allocations.
    await nonceFlood(society.url, 2_000, 2, (i) => `ag_${i.toString(16).padStart(16, '0')}`);
    const heap_before = heapUsedAfterGc();
    const statuses = await nonceFlood(
      society.url,
      50_000,
      4,
      (i) => `ag_${(i + 0x1000_0000).toString(16).padStart(16, '0')}`,
    );
    const heap_after = heapUsedAfterGc();
    console.log(
      `random-id flood: ${JSON.stringify(Object.fromEntries(statuses))}, heap ${(heap_before / MB).toFixed(1)} -> ${(heap_after / MB).toFixed(1)} MB`,
    );
    expect(statuses.get(200)).toBe(50_000);
    // 50,000 outstanding nonces kept in memory would be well over this (a nonce is 40 characters, and its entry more).
    expect(heap_after - heap_before).toBeLessThan(2 * MB);
    expect(society.nonces.spent_count).toBe(0);
  });
});
