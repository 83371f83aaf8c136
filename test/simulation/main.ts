#!/usr/bin/env node
import { SingleBar } from 'cli-progress';
import { parseCommandLine } from '../../client/command_line.js';
import { prologue } from './prologue.js';
import { simulate, type SimulationResult } from './simulation.js';

const USAGE = `npm run simulate -- [options]: seeded runs of a replicated society under faults (test/simulation/simulation.ts)
  --seed N      one seed, its schedule printed (how a failing seed is replayed)
  --seeds N     N seeds from --from (default 100 from 1), a progress bar, every failing seed listed
  --from N      the first seed of --seeds
  --unfenced    the tick log without its term fence, as before issue 29
  --quiet       no progress bar
Exits 1 if any seed broke an invariant, 2 on a mistake in the options.`;

const { values } = parseCommandLine('npm run simulate --', {
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string', default: '100' },
    from: { type: 'string', default: '1' },
    unfenced: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const fenced = !values.unfenced;
const mode = fenced ? '' : ' --unfenced';

const from = Number(values.from);
const count = Number(values.seeds);
if (values.seed !== undefined && !Number.isSafeInteger(Number(values.seed)))
  usage(`--seed takes a whole number, not ${JSON.stringify(values.seed)}`);
if (!Number.isSafeInteger(from) || !Number.isSafeInteger(count) || count < 1)
  usage('--from and --seeds take whole numbers, --seeds at least 1');

const made_ms = performance.now();
await prologue();
const prologue_ms = performance.now() - made_ms;

if (values.seed !== undefined) {
  const result = await simulate({ seed: Number(values.seed), fenced, trace: true });
  console.log(result.schedule.join('\n'));
  report([result]);
  process.exit(result.violations.length > 0 ? 1 : 0);
}

const bar = values.quiet
  ? undefined
  : new SingleBar({ format: 'seeds {bar} {value}/{total} | failing {failing} | {eta_formatted} left' });
bar?.start(count, 0, { failing: 0 });
const results: SimulationResult[] = [];
const started_ms = performance.now();
let failing = 0;
for (let seed = from; seed < from + count; seed++) {
  const result = await simulate({ seed, fenced });
  results.push(result);
  if (result.violations.length > 0) failing++;
  bar?.increment(1, { failing });
}
bar?.stop();
const elapsed_s = (performance.now() - started_ms) / 1000;
report(results);
const events = results.reduce((sum, result) => sum + result.stats.events, 0);
console.log(
  `${count} seeds in ${elapsed_s.toFixed(1)} s (${((count / elapsed_s) * 60).toFixed(0)} seeds a minute, ` +
    `${Math.round(events / elapsed_s)} simulated events a second; the society's prologue took ${Math.round(prologue_ms)} ms once)`,
);
process.exit(failing > 0 ? 1 : 0);

function report(results: SimulationResult[]): void {
  for (const result of results) {
    if (result.violations.length === 0) continue;
    console.log(`\nseed ${result.seed} FAILED (replay: npm run simulate -- --seed ${result.seed}${mode}):`);
    for (const violation of result.violations) console.log(`  ${violation}`);
  }
  const totals = results.reduce(
    (sum, { stats }) => ({
      acknowledged: sum.acknowledged + stats.acknowledged,
      unknown: sum.unknown + stats.unknown,
      exits: sum.exits + stats.exits,
      terms: sum.terms + stats.terms,
    }),
    { acknowledged: 0, unknown: 0, exits: 0, terms: 0 },
  );
  console.log(
    `${results.length - results.filter((result) => result.violations.length > 0).length} of ${results.length} seeds held every invariant; ` +
      `${totals.acknowledged} acts acknowledged, ${totals.unknown} left with an unknown outcome, ${totals.exits} node exits, ${totals.terms} terms begun`,
  );
}

function usage(problem: string): never {
  console.error(`npm run simulate: ${problem}\n${USAGE}`);
  process.exit(2);
}
