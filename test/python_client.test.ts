import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';

/*
 * The Python client (clients/python, standard library and PyNaCl): its unittest suite, once
 * over the conformance vectors and scripted local servers alone, once against a test society
 * (Proof of Machine solved in Python, the event stream followed through a proxy that cuts
 * it). Debian's python3-nacl is what it needs (.ci/run installs it); without it the tests
 * say so and skip.
 */

const PYTHON = '/usr/bin/python3';
const has_nacl = spawnSync(PYTHON, ['-c', 'import nacl'], { stdio: 'ignore' }).status === 0;
if (!has_nacl) console.warn(`python_client: skipped: \`${PYTHON} -c 'import nacl'\` failed (install python3-nacl)`);

/** Runs the suite without blocking the event loop (the society answers from this process). */
function unittest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-m', 'unittest', 'discover', '-v', 'clients/python/tests'], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// Checked here too, so a stale copy fails even where the Python suite is skipped.
it("ships the engine's event catalogue, byte for byte, as its ledger verifier's tables", () => {
  const shipped = readFileSync('clients/python/tessera/event_catalogue.json', 'utf8');
  const generated = readFileSync('docs/vectors/event_catalogue.json', 'utf8');
  expect(shipped, 'copy docs/vectors/event_catalogue.json to clients/python/tessera/event_catalogue.json').toBe(
    generated,
  );
});

describe.skipIf(!has_nacl)('the Python client', () => {
  let society: TestSociety;
  beforeAll(async () => {
    society = await startTestSociety();
  });
  afterAll(async () => society?.destroy());

  it('passes the conformance vectors', async () => {
    const run = await unittest({ TESSERA_URL: '' });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/test_every_tampered_copy_fails_at_its_seq .* ok/);
    expect(run.output).toMatch(/test_the_shipped_copy_is_the_generated_one .* ok/);
    expect(run.output).toMatch(/test_a_road_moved_fails_naming_the_path_and_the_signed_field .* ok/);
    expect(run.output).toMatch(/test_a_line_past_the_bound_is_refused_before_it_ends .* ok/);
    expect(run.output).toMatch(/test_a_cut_mid_event_resumes_after_the_last_seq_yielded .* ok/);
    expect(run.output).toMatch(/test_rewritten_is_handed_over_and_the_rewritten_seqs_are_yielded .* ok/);
    expect(run.output).toMatch(/skipped 'set TESSERA_URL/);
  });

  it('registers, acts, replays an act, solves Proof of Machine, follows the event stream across a cut', async () => {
    const run = await unittest({ TESSERA_URL: society.url });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/test_2_an_act_resent_unchanged_gets_its_first_answer_again .* ok/);
    expect(run.output).toMatch(/test_8_a_bulletin_post_gets_its_proof_of_machine_solved .* ok/);
    expect(run.output).toMatch(
      /test_9_the_event_stream_brings_an_act_and_resumes_after_a_cut_with_last_event_id .* ok/,
    );
    expect(run.output).toMatch(
      /test_10_a_stream_resumed_past_the_head_is_told_rewritten_and_resumes_at_the_head .* ok/,
    );
    expect(run.output).not.toMatch(/skipped/);
    expect(society.bugs).toEqual([]);
  });
});
