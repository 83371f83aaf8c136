import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { benchLedgerAppend } from './ledger_append.js';
import { machineLine, median } from './measure.js';
import { benchSignatures } from './signatures.js';

/**
 * npm run bench: every row is a pair measured side by side in the same run, repeated
 * `--runs` times on this shared, noisy machine; RESULTS.md gets the medians.
 */
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, out: { type: 'string', default: 'bench/RESULTS.md' } } });
const runs = Number(values.runs);

interface Row {
  figure: string;
  measured: string;
  against: string;
  samples: { subject: number; reference: number }[];
  target?: number;
}

const rows: Row[] = [
  { figure: 'ledger append, durable (entries/s)', measured: 'engine: apply + JCS + SHA-256 + log + LMDB commit per tick', against: 'bare limit: SHA-256 of the same bytes + lmdb put', samples: [], target: 0.5 },
  { figure: 'signature verification (verifies/s)', measured: 'node:crypto, cached KeyObject', against: '@noble/ed25519 (sync, node sha512)', samples: [] },
];

for (let run = 1; run <= runs; run++) {
  const append = await benchLedgerAppend();
  rows[0]!.samples.push({ subject: append.engine, reference: append.bare });
  const signatures = await benchSignatures();
  rows[1]!.samples.push({ subject: signatures.node, reference: signatures.noble });
  console.log(`run ${run}/${runs}: append ${Math.round(append.engine)} vs ${Math.round(append.bare)} entries/s; verify ${Math.round(signatures.node)} vs ${Math.round(signatures.noble)} /s`);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
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
    const target = row.target === undefined ? '' : `${ratio >= row.target ? 'met' : 'missed'}: at least ${row.target}`;
    return `| ${row.figure} | ${row.measured} | ${fmt(median(row.samples.map((s) => s.subject)))} | ${row.against} | ${fmt(median(row.samples.map((s) => s.reference)))} | ${ratio.toFixed(2)} | ${target} |`;
  }),
  '',
  'Regenerate with `npm run bench` (`-- --runs N` for more runs). Per-run figures:',
  '',
  '```',
  ...rows.map((row) => `${row.figure}: ${row.samples.map((s) => `${fmt(s.subject)}/${fmt(s.reference)}`).join(', ')}`),
  '```',
  '',
];
writeFileSync(values.out!, lines.join('\n'));
console.log(lines.join('\n'));
