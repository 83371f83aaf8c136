import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TesseraClient } from '../client/sdk.js';
import { generateKey } from '../client/keys.js';
import { verifyLedger } from '../client/verify.js';
import { configFromEnv } from '../api/config.js';
import { freePort } from '../bench/nats_cluster.js';
import { memoryCluster, NodeLink, startClusterNode } from './helpers/cluster.js';
import { founderClient, startTestSociety, tempDir, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { refusal } from './helpers/world.js';

/** The dispatch_published entries on the ledger, oldest first. */
async function dispatchEntries(society: TestSociety): Promise<any[]> {
  return [...society.store.ledgerEntries(1)]
    .map(({ json }) => JSON.parse(json))
    .filter((entry) => entry.event_type === 'dispatch_published');
}

describe("the Founder's note in a Dispatch", () => {
  let society: TestSociety;
  let founder: TesseraClient;

  beforeAll(async () => {
    society = await startTestSociety();
    founder = await founderClient(society);
  });
  afterAll(() => society.destroy());
  afterEach(() => expect(society.bugs).toEqual([]));

  it('still takes an empty body, as every Founder client signed it before: no note anywhere', async () => {
    const published = await founder.signed<any>('POST', '/enactment/dispatch', {});
    expect(published).toMatchObject({ dispatch_id: 1, text: 'Nothing new.' });
    const [entry] = await dispatchEntries(society);
    expect(entry.data).not.toHaveProperty('note');
    expect(JSON.parse(entry.proof.body)).toEqual({});
    const { body } = await request(society.url, '/api/v1/dispatches');
    expect(body.dispatches[0]).not.toHaveProperty('note');
    expect((await request(society.url, '/dispatches')).body).not.toContain('The Founder writes');
  });

  it('keeps the note on the ledger entry, in the read answer and on both pages, escaped', async () => {
    const note = 'Quiet week.\n<script>alert(1)</script> & "more"';
    const published = await founder.signed<any>('POST', '/enactment/dispatch', { note });
    const entry = (await dispatchEntries(society)).at(-1);
    expect(entry.data).toMatchObject({ dispatch_id: published.dispatch_id, note });
    expect(JSON.parse(entry.proof.body)).toEqual({ note });

    const { body } = await request(society.url, '/api/v1/dispatches');
    expect(body.dispatches[0]).toMatchObject({ dispatch_id: published.dispatch_id, note });

    const html = (await request(society.url, '/dispatches')).body as string;
    expect(html).toContain('The Founder writes:');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;more&#34;');

    // The ledger explorer's sentence says there is a note; the entry's page shows it.
    const explorer = (await request(society.url, '/ledger?type=dispatch_published')).body as string;
    expect(explorer).toContain(', with a note from the Founder)');
    const entry_page = (await request(society.url, `/ledger/${entry.seq}`)).body as string;
    expect(entry_page).toContain('Quiet week.');

    const markdown = (await request(society.url, '/dispatches.md')).body as string;
    expect(markdown).toContain('The Founder writes:');
    expect(markdown).toContain('> Quiet week.');
    expect(markdown).not.toContain('<script>');
  });

  it('refuses a note over 2000 code points with the 422 shape, and publishes nothing', async () => {
    const before = society.engine.state.governance.dispatches.length;
    const refused = await refusal(founder.signed('POST', '/enactment/dispatch', { note: '😀'.repeat(2001) }));
    expect([refused.status, refused.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect((refused.body as any).detail[0]).toMatchObject({ loc: ['body', 'note'] });
    const empty = await refusal(founder.signed('POST', '/enactment/dispatch', { note: '' }));
    expect(empty.status).toBe(422);
    const control = await refusal(founder.signed('POST', '/enactment/dispatch', { note: 'a\rb' }));
    expect(control.status).toBe(422);
    expect(society.engine.state.governance.dispatches.length).toBe(before);
    const longest = await founder.signed<any>('POST', '/enactment/dispatch', { note: '😀'.repeat(2000) });
    expect(longest.dispatch_id).toBe(before + 1);
  });
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The test societies start at 10:00 UTC (test/helpers/society.ts); the Dispatch is set for noon. */
const NOON = 12 * 60;
const MORNING_MS = Date.parse('2026-11-21T10:00:00.000Z');

/** Long enough for the scheduler, which looks at the clock every second, to have looked at least once. */
const oneCheck = () => new Promise((resolve) => setTimeout(resolve, 1_300));

const dispatchCount = (society: TestSociety) => society.engine.state.governance.dispatches.length;

/** Waits for count Dispatches on the ledger (the state holds one a moment before its entry is stored). */
async function expectDispatches(society: TestSociety, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      expect(dispatchCount(society)).toBe(count);
      expect(await dispatchEntries(society)).toHaveLength(count);
    },
    { timeout: 5_000, interval: 50 },
  );
}

const atOf = (entry: { at: string }) => new Date(entry.at).toISOString();

describe('the daily Dispatch (DISPATCH_DAILY_AT_UTC)', () => {
  const societies: TestSociety[] = [];
  afterAll(() => Promise.all(societies.map((society) => society.destroy())));

  async function society(options: Parameters<typeof startTestSociety>[0] = {}): Promise<TestSociety> {
    const started = await startTestSociety(options);
    societies.push(started);
    return started;
  }

  it('publishes nothing before the time, one at it, none again that day, one the next day: signed by the Founder, verifiable', async () => {
    const s = await society({ config: { dispatch_daily_at_minutes: NOON } });
    await oneCheck();
    expect(dispatchCount(s)).toBe(0);
    s.advance(2 * HOUR_MS - 60_000); // 11:59
    await oneCheck();
    expect(dispatchCount(s)).toBe(0);

    s.advance(60_000); // 12:00
    await expectDispatches(s, 1);
    const [entry] = await dispatchEntries(s);
    expect(entry).toMatchObject({ actor: s.engine.state.founder_agent_id, data: { dispatch_id: 1 } });
    expect(entry.proof).toMatchObject({ method: 'POST', path: '/enactment/dispatch', body: '{}' });
    expect(entry.data).not.toHaveProperty('note');
    const published = s.logs.filter((line) => line.includes('daily_dispatch_published'));
    expect(published).toHaveLength(1);
    expect(JSON.parse(published[0]!)).toMatchObject({ dispatch_id: 1, scheduled_at: '2026-11-21T12:00:00.000Z' });
    const key = JSON.parse(readFileSync(join(s.data_dir, 'founder.key.json'), 'utf8'));
    expect(s.logs.join('\n')).not.toContain(key.private_key);

    s.advance(6 * HOUR_MS); // 18:00
    await oneCheck();
    expect(dispatchCount(s)).toBe(1);
    s.advance(17 * HOUR_MS); // 11:00 the next day
    await oneCheck();
    expect(dispatchCount(s)).toBe(1);
    s.advance(HOUR_MS + 5_000); // 12:00:05 the next day
    await expectDispatches(s, 2);
    await oneCheck();
    expect(dispatchCount(s)).toBe(2);
    expect((await dispatchEntries(s)).map(atOf)).toEqual(['2026-11-21T12:00:00.000Z', '2026-11-22T12:00:05.000Z']);
    expect(await verifyLedger(s.url)).toMatchObject({ ok: true });
    expect(s.bugs).toEqual([]);
  });

  it('publishes none on a day the Founder already published one by hand after the time', async () => {
    const data_dir = tempDir();
    // Published by hand at 12:30, with the service not scheduling anything.
    const by_hand = await startTestSociety({ data_dir, start_ms: MORNING_MS + 2.5 * HOUR_MS });
    await (await founderClient(by_hand)).signed('POST', '/enactment/dispatch', { note: 'By hand.' });
    await by_hand.close();
    // Started again at 13:00 that day with the setting: noon's Dispatch is out already.
    const s = await society({
      data_dir,
      start_ms: MORNING_MS + 3 * HOUR_MS,
      config: { dispatch_daily_at_minutes: NOON },
    });
    await oneCheck();
    expect(dispatchCount(s)).toBe(1);
    expect(s.logs.some((line) => line.includes('daily_dispatch_published'))).toBe(false);
    // The next day's is the service's again.
    s.advance(DAY_MS);
    await expectDispatches(s, 2);
  });

  it('is not sent with a Founder key file the Founder rotated away: said once a day, with what to do', async () => {
    const s = await society({ config: { dispatch_daily_at_minutes: NOON } });
    const founder = await founderClient(s);
    const backup = await generateKey();
    await founder.registerBackupKey(backup.public_key);
    const fresh = await generateKey();
    await new TesseraClient(s.url).rotateKey(backup, fresh.public_key, s.engine.state.founder_agent_id);
    const head_before = s.store.ledgerHead().seq;

    s.advance(2 * HOUR_MS); // 12:00
    await oneCheck();
    await oneCheck();
    const failed = s.logs.filter((line) => line.includes('daily_dispatch_failed'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0]!)).toMatchObject({
      error: expect.stringMatching(/no longer the Founder's \(rotated since\): copy the current Founder key there/),
      retry: 'tomorrow',
    });
    // Nothing was sent: no refused request, no entry.
    expect(s.store.ledgerHead().seq).toBe(head_before);
    expect(dispatchCount(s)).toBe(0);
    expect(s.bugs).toEqual([]);
  });

  it('catches up once, not once per missed day, when started after the time', async () => {
    const data_dir = tempDir();
    const before = await startTestSociety({ data_dir });
    await before.close();
    // Four days later, at 15:00: one Dispatch for today, none for the three days it was down.
    const s = await society({
      data_dir,
      start_ms: MORNING_MS + 4 * DAY_MS + 5 * HOUR_MS,
      config: { dispatch_daily_at_minutes: NOON },
    });
    await expectDispatches(s, 1);
    await oneCheck();
    expect(dispatchCount(s)).toBe(1);
    expect(atOf((await dispatchEntries(s))[0])).toBe('2026-11-25T15:00:00.000Z');
  });

  it('is never published by a replica, even one holding the Founder key and the setting', async () => {
    const cluster = memoryCluster(10_000);
    const leader = await startClusterNode(cluster, { node_id: 'a', role: 'leader' });
    societies.push(leader);
    const joined = await startClusterNode(cluster, {
      node_id: 'b',
      role: 'replica',
      eligible: false,
      log_key_from: leader.data_dir,
    });
    await vi.waitFor(() => expect(joined.store.ledgerHead()).toEqual(leader.store.ledgerHead()), { timeout: 5_000 });
    await joined.close();
    // Started again with the Founder key beside its store, set for the minute it is in: due at once.
    copyFileSync(join(leader.data_dir, 'founder.key.json'), join(joined.data_dir, 'founder.key.json'));
    const now_ms = Date.now();
    const port = await freePort();
    const replica = await society({
      data_dir: joined.data_dir,
      start_ms: now_ms,
      config: {
        port,
        public_url: `http://127.0.0.1:${port}`,
        dispatch_daily_at_minutes: Math.floor((now_ms % DAY_MS) / 60_000),
        cluster: {
          servers: ['nats://in-process'],
          role: 'replica',
          node_id: 'b',
          log_name: 'test',
          log_replicas: 1,
          lease_ttl_ms: cluster.ttl_ms,
          eligible: false,
        },
      },
      start: { cluster_log: new NodeLink(cluster), on_fatal: (error) => expect.fail(String(error)) },
    });
    expect(replica.cluster!.leading).toBe(false);
    await oneCheck();
    await oneCheck();
    expect(dispatchCount(replica)).toBe(0);
    expect(dispatchCount(leader)).toBe(0);
    expect(replica.logs.filter((line) => line.includes('daily_dispatch'))).toEqual([]);
  });

  it('is off by default: no setting, no Dispatch, ever', async () => {
    const s = await society();
    s.advance(3 * HOUR_MS);
    await oneCheck();
    s.advance(DAY_MS);
    await oneCheck();
    expect(dispatchCount(s)).toBe(0);
    expect(s.logs.some((line) => line.includes('daily_dispatch'))).toBe(false);
  });

  it('reads HH:MM as minutes after midnight UTC, and refuses anything else naming the variable', () => {
    expect(configFromEnv({ DISPATCH_DAILY_AT_UTC: '09:30' }).dispatch_daily_at_minutes).toBe(570);
    expect(configFromEnv({ DISPATCH_DAILY_AT_UTC: '00:00' }).dispatch_daily_at_minutes).toBe(0);
    expect(configFromEnv({}).dispatch_daily_at_minutes).toBeUndefined();
    for (const bad of ['24:00', '9:30', '12:60', 'noon', '12:00Z', ' 12:00', ''])
      expect(() => configFromEnv({ DISPATCH_DAILY_AT_UTC: bad }), bad).toThrow(
        /bad configuration: DISPATCH_DAILY_AT_UTC: must be a time of day HH:MM/,
      );
  });

  it('stops the server at start-up with exit 78 for a bad value, naming it, before anything is written', async () => {
    const data_dir = join(tempDir(), 'never-made');
    const exit = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'api/main.ts'],
        { env: { ...process.env, PORT: '0', DATA_DIR: data_dir, DISPATCH_DAILY_AT_UTC: '25:00' }, timeout: 30_000 },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
    });
    expect(exit.code).toBe(78);
    expect(exit.stderr).toContain('DISPATCH_DAILY_AT_UTC');
    expect(existsSync(data_dir)).toBe(false);
  });
});
