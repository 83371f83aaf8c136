import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchLedgerAppend } from './ledger_append.js';
import { machineLine, median } from './measure.js';
import { benchKeyJudging, benchSignatures } from './signatures.js';
import { benchAllChunks, benchChunkEncode, benchLooks } from './world.js';
import { benchBulletinAllowance, benchVotes } from './governance.js';
import type { DurableRates } from './bare_ledger.js';
import { benchChallenges, benchFeed } from './aether.js';
import { READ_ROWS, benchReads, readLabel } from './load.js';
import { benchDrill } from './drill.js';
import { benchInclusionProofs, benchTileReads, TILE_ROWS } from './log.js';
import { benchVerifyAcrossCores } from './cores.js';

/**
 * npm run bench: every row is a figure measured beside its ceiling or its alternative
 * in the same run, repeated `--runs` times on this shared, noisy machine; RESULTS.md
 * gets the medians of the figures and of the per-run ratios.
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    out: { type: 'string', default: 'bench/RESULTS.md' },
    // --only REGEX: measure and print only the rows whose figure matches (for comparing builds); RESULTS.md is left alone.
    only: { type: 'string' },
  },
});
const runs = Number(values.runs);

interface Row {
  figure: string;
  measured: string;
  against: string;
  /** Ratio subject / reference must reach at least this (or, with `at_most`, stay under it). */
  target?: number;
  at_most?: boolean;
  measure(): Promise<{ subject: number; reference: number }>;
  samples: { subject: number; reference: number }[];
}

/** Resident memory of a society in its own process, so this process's benches do not count. */
function memoryProbe(agents: number): number {
  const probe = fileURLToPath(new URL('./memory_probe.js', import.meta.url));
  // A probe that hangs fails the run instead of stalling it (one did: see bench/members.ts).
  const output = execFileSync(process.execPath, ['--expose-gc', probe, String(agents)], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return (JSON.parse(output.trim().split('\n').pop()!) as { rss_mb: number }).rss_mb;
}

/** The run in progress: a measurement that serves several rows is made once per run. */
let current_run = 0;

/** One measurement shared by several rows (the two vote rows, the three read rows...), made afresh each run. */
function oncePerRun<T>(measure: () => Promise<T>): () => Promise<T> {
  let made: { run: number; value: Promise<T> } | undefined;
  return () => {
    if (made?.run !== current_run) made = { run: current_run, value: measure() };
    return made.value;
  };
}

/** A durable act's bench in a fresh process (durable_child.ts); BENCH_CPU and BENCH_PROFILE reach it too. */
function durableInOwnProcess<T>(which: 'moves' | 'votes' | 'sends'): Promise<T> {
  const script = fileURLToPath(new URL('./durable_child.js', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, which], { timeout: 600_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (stderr) process.stderr.write(stderr);
      if (error) return reject(error);
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as T);
    });
  });
}

const moves = oncePerRun(() => durableInOwnProcess<DurableRates>('moves'));
const votes = oncePerRun(() => durableInOwnProcess<Awaited<ReturnType<typeof benchVotes>>>('votes'));
const sends = oncePerRun(() => durableInOwnProcess<DurableRates>('sends'));
const reads = oncePerRun(() => benchReads());
const tiles = oncePerRun(() => benchTileReads());
const cores = oncePerRun(() => benchVerifyAcrossCores([2, 4]));

/**
 * Under a durable act's row: the floor the ledger's public formats set for the same
 * entries (BareLedger.appendAsFormatsRequire) against the same bare limit, which the
 * act's own ratio cannot pass while the formats stay as they are; then that floor with
 * the tick's log record, which it cannot pass either while replaying the log is how the
 * engine reproduces its ledger.
 */
function floorRows(act: string, unit: string, measure: () => Promise<DurableRates>): Row[] {
  const floors: [figure: string, measured: string, rate: 'floor' | 'logged'][] = [
    [
      `${act}: the floor the ledger formats set (${unit}/s)`,
      'only what the formats require of the same entries: JCS text and chain hash, RFC 6962 leaf and node hash, the puts',
      'floor',
    ],
    [
      `${act}: that floor with the log record replay needs (${unit}/s)`,
      "the floor above, and the tick's record of the same acts (engine/store/record_bytes.ts) in the same transaction",
      'logged',
    ],
  ];
  return floors.map(([figure, measured, rate]) => ({
    figure,
    measured,
    against: 'the bare limit of the row above',
    measure: async () => {
      const r = await measure();
      return { subject: r[rate], reference: r.bare };
    },
    samples: [],
  }));
}

const rows: Row[] = [
  {
    figure: 'ledger append, durable (entries/s)',
    measured: 'engine: apply + JCS + SHA-256 + log + LMDB commit per tick',
    against: 'bare limit: SHA-256 of the same bytes + lmdb put',
    target: 0.5,
    measure: async () => {
      const r = await benchLedgerAppend();
      return { subject: r.engine, reference: r.bare };
    },
    samples: [],
  },
  {
    figure: 'signature verification (verifies/s)',
    measured: 'node:crypto, cached KeyObject',
    against: '@noble/ed25519 (sync, node sha512)',
    measure: async () => {
      const r = await benchSignatures();
      return { subject: r.node, reference: r.noble };
    },
    samples: [],
  },
  ...[2, 4].map((threads) => ({
    figure: `signature checks by a pool of ${threads} worker threads, batches of 64 (verifies/s)`,
    measured: `piscina pool of ${threads} threads, the main thread only handing batches over`,
    against:
      "the same batches on the main thread (one core's rate; a pool reaches its size times it only with that many cores to spare)",
    measure: async () => {
      const r = await cores();
      return { subject: r.pools[threads]!, reference: r.inline };
    },
    samples: [] as { subject: number; reference: number }[],
  })),
  {
    figure: 'public key judged, fresh keys (keys/s)',
    measured: 'libsodium crypto_core_ed25519_is_valid_point (server and engine)',
    against: 'the same check on @noble/ed25519 (the portable client verifier)',
    measure: async () => {
      const r = await benchKeyJudging();
      return { subject: r.sodium, reference: r.noble };
    },
    samples: [],
  },
  {
    figure: 'chunk encode + SHA-256 (chunks/s)',
    measured: 'RLE chunk binary and its ETag hash, revealed terrain near the centre',
    against: 'zlib deflateRawSync of the same three layers',
    target: 6,
    measure: async () => {
      const r = await benchChunkEncode();
      return { subject: r.encode, reference: r.deflate };
    },
    samples: [],
  },
  {
    figure: 'all 1024 chunks, fully revealed world (chunks/s)',
    measured: 'piscina pool, 2 threads, 64 chunks per task',
    against: 'inline on the main thread',
    measure: async () => {
      const r = await benchAllChunks();
      return { subject: r.pool, reference: r.inline };
    },
    samples: [],
  },
  {
    figure: 'world_move, durable, 10,000 members (moves/s)',
    measured: 'engine: checks, AP, reveal, ledger entry, LMDB commit per tick',
    against: 'bare limit: SHA-256 + lmdb put of the same agent_moved and ap_spent entries',
    target: 0.6,
    measure: async () => {
      const r = await moves();
      return { subject: r.engine, reference: r.bare };
    },
    samples: [],
  },
  ...floorRows('world_move', 'moves', moves),
  {
    figure: 'world_look, 10,000 members (looks/s)',
    measured: 'a radius-2 look by each member in turn: tiles, their members, AP and standing',
    against: 'the same look in a society of 100 members',
    measure: async () => {
      const r = await benchLooks();
      return { subject: r.large, reference: r.small };
    },
    samples: [],
  },
  {
    figure: 'vote_cast, durable, 10,000 members on one motion (votes/s)',
    measured: 'engine: checks, tally kept vote by vote, roll, ledger entry, LMDB commit per tick',
    against: 'bare limit: SHA-256 + lmdb put of the same vote_cast entries',
    target: 0.6,
    measure: async () => {
      const r = await votes();
      return { subject: r.engine, reference: r.bare };
    },
    samples: [],
  },
  ...floorRows('vote_cast', 'votes', votes),
  {
    figure: 'tally read on a motion revised by every vote above (reads/s)',
    measured: 'the tally of the bench motion, revised by every vote above',
    against: 'the tally of a motion with 10 votes',
    target: 0.8,
    measure: async () => {
      const r = await votes();
      return { subject: r.tally_many, reference: r.tally_few };
    },
    samples: [],
  },
  {
    figure: 'bulletin allowance on a board of 100,000 posts by 10,000 members (checks/s)',
    measured:
      "the poster's posts in the rolling day, as every bulletin_post and its answer's RateLimit headers read them",
    against: 'the same check on a board of 100 posts',
    // Both sides take a tenth of a microsecond; the larger board's 10,000 posters' lookups miss the cache more often.
    target: 0.5,
    measure: async () => {
      const r = await benchBulletinAllowance();
      return { subject: r.large, reference: r.small };
    },
    samples: [],
  },
  {
    figure: 'Aether feed read by since_id, newest 50 of 100,000 messages (reads/s)',
    measured: 'page selection and body_html rendering, 100,000-message history',
    against: 'the same read of a 1,000-message history',
    target: 0.8,
    measure: async () => {
      const r = await benchFeed();
      return { subject: r.large, reference: r.small };
    },
    samples: [],
  },
  {
    figure: 'pom_challenge, 10,000 members holding 2 each (requests/s)',
    measured: "the request through the engine: the asker's own challenges counted, stale ones cleared, one issued",
    against: 'the same request in a society of 100 members',
    target: 0.8,
    measure: async () => {
      const r = await benchChallenges();
      return { subject: r.large, reference: r.small };
    },
    samples: [],
  },
  {
    figure: 'aether_send, durable, Proof of Machine answered (sends/s)',
    measured: 'engine: PoM gate, rate limit, message, ledger entry, LMDB commit per tick',
    against: 'bare limit: SHA-256 + lmdb put of the same aether_sent entries',
    target: 0.6,
    measure: async () => {
      const r = await sends();
      return { subject: r.engine, reference: r.bare };
    },
    samples: [],
  },
  ...floorRows('aether_send', 'sends', sends),
  ...(
    [
      [READ_ROWS[0]!, 'GET / (a new visitor each time: cookie, watchers, page)', 0.5],
      [READ_ROWS[1]!, 'GET /world.md', undefined],
      [READ_ROWS[2]!, 'chunk read answering 304 (If-None-Match)', 0.85],
    ] as const
  ).map(([read, figure, target]) => ({
    // Per CPU-second, not per second: at these rates the one generator process is the limit of both servers.
    figure: `${figure} over HTTP (requests per server CPU-second)`,
    measured: 'the server, embedded store, 16 keep-alive connections from a second process',
    against: 'bare node:http answering the same bytes, same load',
    ...(target === undefined ? {} : { target }),
    measure: async () => {
      const r = (await reads())[readLabel(read)]!;
      return { subject: 1e6 / r.server_cpu_us, reference: 1e6 / r.bare_cpu_us };
    },
    samples: [] as { subject: number; reference: number }[],
  })),
  ...(
    [
      [TILE_ROWS[0]!, 'full level-0 tile, GET /log/tile/0/000'],
      [TILE_ROWS[1]!, 'full entry bundle, GET /log/tile/entries/000'],
    ] as const
  ).map(([tile, figure]) => ({
    figure: `${figure} (requests per server CPU-second)`,
    measured:
      'the server: tile path parsed, bytes from its LRU, strong ETag; 16 keep-alive connections from a second process',
    against: 'bare node:http answering the same bytes, same load',
    target: 0.8,
    measure: async () => {
      const r = (await tiles())[readLabel(tile)]!;
      return { subject: 1e6 / r.server_cpu_us, reference: 1e6 / r.bare_cpu_us };
    },
    samples: [] as { subject: number; reference: number }[],
  })),
  {
    figure: 'inclusion proof, 100,000-leaf tree as stored in LMDB (proofs/s)',
    measured:
      'LogTree.inclusionProof at random leaves, tree opened afresh: ~17 stored hashes read, the right edge folded',
    against:
      "checking the same proof: its root recomputed, one SHA-256 node hash per proof hash (the client's cost; a ratio near 1 or above means serving a proof costs no more than checking it)",
    measure: async () => {
      const r = await benchInclusionProofs(100_000);
      return { subject: r.generated, reference: r.checked };
    },
    samples: [],
  },
  {
    figure: 'restore drill, society of 250,000 signed ledger entries (s)',
    measured:
      'restore the half-way backup in a scratch folder, replay the live log after it byte for byte, verify every proof (passed)',
    against: 'a full replay of the whole log from nothing (no proofs)',
    measure: async () => {
      // A quarter of a million, not a million: the drill verifies one ed25519 signature per entry, and both scale linearly.
      const r = await benchDrill(250_000);
      return { subject: r.drill_seconds, reference: r.full_replay_seconds };
    },
    samples: [],
  },
  {
    figure: 'resident memory, whole plane + 10,000 members (MB)',
    measured: 'RSS of a society process after registering 10,000 members',
    against: 'ceiling of the issue: 200 MB',
    target: 1,
    at_most: true,
    measure: async () => ({ subject: memoryProbe(10_000), reference: 200 }),
    samples: [],
  },
];

const only = values.only === undefined ? undefined : new RegExp(values.only, 'i');
const measured_rows = only ? rows.filter((row) => only.test(row.figure)) : rows;
for (let run = 1; run <= runs; run++) {
  current_run = run;
  for (const row of measured_rows) row.samples.push(await row.measure());
  console.log(
    `run ${run}/${runs}: ` +
      measured_rows
        .map(
          (row) =>
            `${row.figure.split(' (')[0]} ${Math.round(row.samples.at(-1)!.subject)}/${Math.round(row.samples.at(-1)!.reference)} (${(row.samples.at(-1)!.subject / row.samples.at(-1)!.reference).toFixed(2)})`,
        )
        .join('; '),
  );
}
if (only) process.exit(0);

const fmt = (n: number) => (n < 100 ? n.toFixed(2) : Math.round(n).toLocaleString('en-US'));
const lines = [
  '# Benchmark results',
  '',
  `Machine: ${machineLine()}`,
  `Date: ${new Date().toISOString().slice(0, 10)}; ${runs} runs; each figure is the median of the runs, and each ratio the median of the per-run ratios (both sides measured in the same run).`,
  '',
  '| figure | measured | median | against | median | ratio | target |',
  '|---|---|---:|---|---:|---:|---:|',
  ...rows.map((row) => {
    const ratio = median(row.samples.map((s) => s.subject / s.reference));
    let target = '';
    if (row.target !== undefined) {
      const met = row.at_most ? ratio <= row.target : ratio >= row.target;
      target = `${met ? 'met' : 'missed'}: ${row.at_most ? 'at most' : 'at least'} ${row.target}`;
    }
    return `| ${row.figure} | ${row.measured} | ${fmt(median(row.samples.map((s) => s.subject)))} | ${row.against} | ${fmt(median(row.samples.map((s) => s.reference)))} | ${ratio.toFixed(2)} | ${target} |`;
  }),
  '',
  'Regenerate with `npm run bench` (`-- --runs N` for more runs). Per-run figures (measured/against):',
  '',
  '```',
  ...rows.map((row) => `${row.figure}: ${row.samples.map((s) => `${fmt(s.subject)}/${fmt(s.reference)}`).join(', ')}`),
  '```',
  '',
];
// Everything after the table is kept: written by hand (comparisons across builds, which one run cannot
// measure) or by the load run (npm run bench:load), each under its own "## " heading.
const previous = existsSync(values.out!) ? readFileSync(values.out!, 'utf8') : '';
const first_section = previous.indexOf('\n## ');
const kept_sections = first_section >= 0 ? previous.slice(first_section + 1) : '';
writeFileSync(values.out!, lines.join('\n') + (kept_sections ? `\n${kept_sections}` : ''));
console.log(lines.join('\n'));
