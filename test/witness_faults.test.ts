import type { RequestListener } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { parseCheckpoint } from '../client/tlog/checkpoint.js';
import { parseNote } from '../client/tlog/note.js';
import { startSociety, type RunningSociety } from '../api/server.js';
import { WITNESS_LIMITS } from '../api/log/witness_limits.js';
import { tempDir, testConfig } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { listen, startWitnessDouble, type Listening, type WitnessDouble } from './helpers/witness_double.js';
import { onThisMachine } from './helpers/machine_pace.js';

/**
 * Witnesses that are slow, down, refusing or hostile (issue 30): each costs the service
 * a bounded amount of memory and time, and none holds back the checkpoint readers are
 * served or another witness's rounds.
 */

const ORIGIN = 'faults.test/tessera';
/** How soon after an act /log/checkpoint must show it, whatever the witnesses do. */
const CHECKPOINT_LAG_MS_MAX = 3000;
/** The most an honest witness may wait between two checkpoints while the log grows (its round is 1 s). */
const HONEST_GAP_MS_MAX = 2000;
/** What a hostile witness's answer may add to the service's memory (the service runs in this process). */
const RSS_RISE_BYTES_MAX = 50 * 1024 * 1024;
const HOSTILE_ANSWER_BYTES = 300 * 1024 * 1024;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Witnessed extends RunningSociety {
  logs: string[];
  data_dir: string;
}

/** A society whose witnesses are these doubles (and addresses), each double following its log. */
async function startWitnessed(
  witnesses: { url: string; vkey: string }[],
  doubles: WitnessDouble[],
  data_dir = tempDir(),
): Promise<Witnessed> {
  const logs: string[] = [];
  const society = await startSociety(testConfig(data_dir, { log_origin: ORIGIN, witnesses }), {
    log: (line) => logs.push(JSON.stringify(line)),
  });
  const log_vkey = ((await request(society.url, '/log/key')).body as string).trim();
  for (const double of doubles) await double.follow(log_vkey);
  return Object.assign(society, { logs, data_dir });
}

async function double(name: string): Promise<WitnessDouble> {
  const started = await startWitnessDouble(name);
  cleanup.push(() => started.close());
  return started;
}

async function server(handler: RequestListener): Promise<Listening> {
  const started = await listen(handler);
  cleanup.push(() => started.close());
  return started;
}

/** One act on the ledger: a registration. */
async function act(url: string): Promise<void> {
  await new TesseraClient(url, await generateKey()).register(`member-${Math.random().toString(36).slice(2, 10)}`);
}

async function served(url: string): Promise<{ size: number; note: string }> {
  const note = (await request(url, '/log/checkpoint')).body as string;
  return { size: parseCheckpoint(parseNote(note).text).size, note };
}

/** Whether /log/checkpoint carries a cosignature line of each of these witnesses. */
async function cosignedBy(url: string, ...witnesses: WitnessDouble[]): Promise<boolean> {
  const { note } = await served(url);
  return witnesses.every((witness) => note.includes(`\n— ${witness.name} `));
}

async function until(done: () => boolean | Promise<boolean>, timeout_ms: number): Promise<boolean> {
  const deadline = Date.now() + timeout_ms;
  while (Date.now() < deadline) {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return done();
}

/** After an act, how long /log/checkpoint takes to reach the ledger head (CHECKPOINT_LAG_MS_MAX + 1 if it never does). */
async function checkpointLagMs(society: Witnessed): Promise<number> {
  await act(society.url);
  const head = society.store.ledgerHead().seq;
  const start = Date.now();
  const reached = await until(async () => (await served(society.url)).size >= head, CHECKPOINT_LAG_MS_MAX);
  return reached ? Date.now() - start : CHECKPOINT_LAG_MS_MAX + 1;
}

const refusedWith = (society: Witnessed, witness: string, text: string) =>
  society.logs.some((line) => line.includes(`"witness":"${witness}"`) && line.includes(text));

describe('witness faults', () => {
  it('a witness answering 300 MB: the answer is cut at answer_bytes_max, memory barely moves, the round ends at once', async () => {
    let sent_bytes = 0;
    let closed = false;
    const stream: RequestListener = (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      response.once('close', () => (closed = true));
      const pump = () => {
        while (!closed && sent_bytes < HOSTILE_ANSWER_BYTES) {
          sent_bytes += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    };
    const hostile = await double('hostile.test/big');
    const society = await startWitnessed([hostile], [hostile]);
    cleanup.push(() => society.close());
    hostile.behave((_request, response) => response.writeHead(503).end('not yet\n'));
    await act(society.url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    cleanup.push(() => clearInterval(sampler));

    hostile.behave(stream);
    const armed = Date.now();
    await act(society.url);
    const refused = await until(
      () => refusedWith(society, hostile.name, `longer than ${WITNESS_LIMITS.answer_bytes_max} bytes`),
      5000,
    );
    const round_ms = Date.now() - armed;
    await until(() => closed, 2000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(sampler);

    expect(peak - baseline).toBeLessThan(RSS_RISE_BYTES_MAX);
    expect(closed).toBe(true);
    expect(sent_bytes).toBeLessThan(64 * 1024 * 1024);
    expect(refused).toBe(true);
    // One round interval to be asked, then the answer is cut after its first bytes.
    expect(round_ms).toBeLessThan(
      onThisMachine(WITNESS_LIMITS.round_interval_ms + 1500, WITNESS_LIMITS.round_interval_ms),
    );
  });

  it('a witness that never answers holds back neither /log/checkpoint nor an honest witness beside it', async () => {
    const hanging = await double('hanging.test/w');
    const honest = await double('honest.test/w');
    const society = await startWitnessed([hanging, honest], [hanging, honest]);
    cleanup.push(() => society.close());
    // Both cosign first; then one takes each request and answers nothing, ever.
    await act(society.url);
    expect(await until(() => cosignedBy(society.url, hanging, honest), 4000)).toBe(true);
    hanging.behave(() => {});

    const start = Date.now();
    const lags: number[] = [];
    while (Date.now() - start < 4500) {
      lags.push(await checkpointLagMs(society));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(Math.max(...lags)).toBeLessThanOrEqual(onThisMachine(CHECKPOINT_LAG_MS_MAX));
    const during = honest.cosigned_at_ms.filter((at) => at >= start);
    expect(during.length).toBeGreaterThanOrEqual(3);
    const gaps = during.slice(1).map((at, i) => at - during[i]!);
    // The honest witness's round (1 s) is a timer no machine speeds up; the rest is work.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(onThisMachine(HONEST_GAP_MS_MAX, 1000));
    // Once the log rests, the honest witness's line is served on the newest checkpoint, the hanging one's not.
    expect(await until(() => cosignedBy(society.url, honest), 3000)).toBe(true);
    expect(await cosignedBy(society.url, hanging)).toBe(false);
    // A reader that requires a witness asks for the newest cosigned checkpoint: it carries the honest line, and it is
    // no larger than the newest the log signed.
    const cosigned = (await request(society.url, '/log/checkpoint/cosigned')).body as string;
    expect(cosigned).toContain(`\n— ${honest.name} `);
    expect(parseCheckpoint(parseNote(cosigned).text).size).toBeLessThanOrEqual((await served(society.url)).size);
  });

  it('without witnesses, /log/checkpoint/cosigned says there is none yet', async () => {
    const society = await startWitnessed([], []);
    cleanup.push(() => society.close());
    const answer = await request(society.url, '/log/checkpoint/cosigned');
    expect([answer.status, (answer.body as { error: string }).error]).toEqual([404, 'NOT_FOUND']);
  });

  it('every witness down or refusing: the checkpoint keeps growing; the kept cosignatures are served after a restart', async () => {
    const a = await double('a.test/w');
    const b = await double('b.test/w');
    const data_dir = tempDir();
    let society = await startWitnessed([a, b], [a, b], data_dir);
    cleanup.push(() => society.close());
    await act(society.url);
    expect(await until(() => cosignedBy(society.url, a, b), 4000)).toBe(true);
    const cosigned = await served(society.url);

    // Restarted while one witness is down and the other refuses: the note kept in the data folder is served at once.
    await society.close();
    await a.close();
    b.behave((_request, response) => response.writeHead(403).end('not today\n'));
    society = await startWitnessed([a, b], [], data_dir);
    expect(await served(society.url)).toEqual(cosigned);

    for (let round = 0; round < 3; round++) {
      const before = (await served(society.url)).size;
      expect(await checkpointLagMs(society)).toBeLessThanOrEqual(onThisMachine(CHECKPOINT_LAG_MS_MAX));
      const grown = await served(society.url);
      expect(grown.size).toBeGreaterThan(before);
      // Older cosignatures are never attached to a newer checkpoint.
      expect(grown.note).not.toContain(`— ${a.name} `);
      expect(grown.note).not.toContain(`— ${b.name} `);
    }
    expect(await until(() => refusedWith(society, b.name, '403 not today'), 3000)).toBe(true);
  });

  it('a witness answering 307 to another address: the redirect is a refusal, and the other address never hears of it', async () => {
    let elsewhere_requests = 0;
    const elsewhere = await server((_request, response) => {
      elsewhere_requests++;
      response.writeHead(500).end();
    });
    const redirecting = await double('redirecting.test/w');
    const to = `${elsewhere.url}/add-checkpoint`;
    redirecting.behave((_request, response) => response.writeHead(307, { Location: to }).end());
    const society = await startWitnessed([redirecting], []);
    cleanup.push(() => society.close());
    await act(society.url);
    const reported = () => refusedWith(society, redirecting.name, `307 a redirect to ${to}, not followed`);
    await until(() => reported() || elsewhere_requests > 0, 4000);
    expect(elsewhere_requests).toBe(0);
    expect(reported()).toBe(true);
  });
});
