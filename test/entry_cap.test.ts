import canonicalizeJson from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKey } from '../client/keys.js';
import { canonicalBody } from '../client/protocol.js';
import {
  LEDGER_ENTRY_BYTES_MAX,
  LEDGER_PROOF_BYTES_MAX,
  REFUSALS,
  type Proof,
  type SubmitResult,
} from '../engine/index.js';
import { InvariantError } from '../engine/invariant.js';
import { chainEntry } from '../engine/ledger.js';
import { GENESIS_PREV_HASH } from '../engine/state.js';
import * as harness from './helpers/memory_engine.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Every stored entry's served size, largest first. */
function largestEntries(under: harness.EngineUnderTest): { seq: number; bytes: number; event_type: string }[] {
  return [...under.store.ledgerEntries(1)]
    .map(({ seq, json }) => ({ seq, bytes: bytes(json), event_type: JSON.parse(json).event_type as string }))
    .sort((a, b) => b.bytes - a.bytes);
}

describe('LEDGER_ENTRY_BYTES_MAX', () => {
  it('stays under the 16-bit length prefix of a tlog-tiles entry bundle', () => {
    expect(LEDGER_ENTRY_BYTES_MAX).toBeLessThan(65_535);
    expect(LEDGER_PROOF_BYTES_MAX).toBeLessThan(LEDGER_ENTRY_BYTES_MAX);
  });

  it('is an invariant where an entry is chained: an entry one byte over it is a bug, not an entry', () => {
    const head = { seq: 0, hash: GENESIS_PREV_HASH };
    const event = (text: string) => ({ event_type: 'restore_drill' as const, actor: 'system', data: { text } });
    const envelope = bytes(chainEntry(head, 0, event('')).json);
    const fits = chainEntry(head, 0, event('x'.repeat(LEDGER_ENTRY_BYTES_MAX - envelope)));
    expect(bytes(fits.json)).toBe(LEDGER_ENTRY_BYTES_MAX);
    expect(() => chainEntry(head, 0, event('x'.repeat(LEDGER_ENTRY_BYTES_MAX - envelope + 1)))).toThrow(InvariantError);
    // Escaping counts: a control character is six bytes in the served JSON.
    expect(() => chainEntry(head, 0, event('\u0001'.repeat(Math.ceil(LEDGER_ENTRY_BYTES_MAX / 6))))).toThrow(
      /over LEDGER_ENTRY_BYTES_MAX/,
    );
  });
});

describe('requests too large for their entry', () => {
  let under: harness.EngineUnderTest;
  let ada: AgentKey;
  let nonces = 0;

  beforeAll(async () => {
    under = await harness.memoryEngine({ genesis: { params: { motions_per_day_max: 30 } } });
    ada = await harness.registered(under.engine, 'ada');
  });

  /** An act as the act route hands it over: its payload, and the proof of the request that carried it. */
  function signedSubmit(
    act: string,
    actor: string,
    path: string,
    body: Record<string, unknown>,
    payload: Record<string, unknown>,
    pom?: { challenge_id: string; puzzle_solution: string },
  ): { proof: Proof; submit: () => Promise<SubmitResult> } {
    const proof: Proof = {
      method: 'POST',
      path,
      nonce: `nonce-${String(++nonces).padStart(16, '0')}`,
      body: canonicalBody(body),
      signature: 'A'.repeat(86),
    };
    return { proof, submit: () => under.engine.submit({ act, actor, payload, proof, ...(pom ? { pom } : {}) }) };
  }

  async function challenge(intent: string) {
    const asked = await harness.submitAct(under.engine, 'pom_challenge', ada.agent_id, { intent });
    const challenge_id = harness.succeeded(asked).challenge_id as string;
    return { challenge_id, puzzle_solution: under.engine.state.pom.challenges[challenge_id]!.answer };
  }

  /** A motion whose body is `quotes` double quotes (four bytes each in the proof) and `letters` x's (one byte each). */
  function motion(pom: { challenge_id: string; puzzle_solution: string }, quotes: number, letters: number) {
    const payload = { title: 'Long', body: '"'.repeat(quotes) + 'x'.repeat(letters), changes: [] };
    return signedSubmit(
      'motion_propose',
      ada.agent_id,
      '/api/v1/act',
      { act: 'motion_propose', ...pom, payload },
      payload,
      pom,
    );
  }

  it('takes a motion whose proof is exactly LEDGER_PROOF_BYTES_MAX bytes, its entry under the cap, and refuses one byte more, spending nothing', async () => {
    const pom = await challenge('motion_propose');
    const base = bytes(canonicalizeJson(motion(pom, 0, 0).proof)!);
    const quotes = Math.floor((LEDGER_PROOF_BYTES_MAX - base) / 4);
    const letters = LEDGER_PROOF_BYTES_MAX - bytes(canonicalizeJson(motion(pom, quotes, 0).proof)!);
    expect(bytes(canonicalizeJson(motion(pom, quotes, letters).proof)!)).toBe(LEDGER_PROOF_BYTES_MAX);

    const head = under.engine.state.ledger_head.seq;
    const motions = under.engine.state.governance.motion_seq;
    const over = await motion(pom, quotes, letters + 1).submit();
    expect(over).toMatchObject({ ok: false, code: 'PAYLOAD_TOO_LARGE' });
    expect(!over.ok && over.details).toEqual({
      ledger_bytes: LEDGER_PROOF_BYTES_MAX + 1,
      ledger_bytes_max: LEDGER_PROOF_BYTES_MAX,
    });
    expect(REFUSALS.PAYLOAD_TOO_LARGE.status).toBe(413);
    expect([under.engine.state.ledger_head.seq, under.engine.state.governance.motion_seq]).toEqual([head, motions]);

    // The Proof of Machine answer was not spent either: the same one files the motion that fits.
    const fits = await motion(pom, quotes, letters).submit();
    expect(fits.ok).toBe(true);
    const [filed] = fits.ok ? fits.entries : [];
    expect(JSON.parse(filed!.json).event_type).toBe('motion_filed');
    expect(bytes(filed!.json)).toBeGreaterThan(LEDGER_PROOF_BYTES_MAX);
    expect(bytes(filed!.json)).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
  });

  it("keeps the largest data an act adds to its proof under the cap: a Founder's resolve with 2,000 three-byte characters", async () => {
    const pom = await challenge('motion_propose');
    const filed = await motion(pom, 0, 10).submit();
    const motion_id = harness.succeeded(filed).motion_id as string;
    // A character of the Basic Multilingual Plane past U+07FF takes three bytes in data and three in the proof.
    const reason = '\uffff'.repeat(2000);
    const body = { motion_id, reason };
    const resolved = await signedSubmit(
      'enactment_resolve',
      under.founder.agent_id,
      '/enactment/resolve',
      body,
      body,
    ).submit();
    expect(resolved.ok).toBe(true);
    const [entry] = resolved.ok ? resolved.entries : [];
    expect(JSON.parse(entry!.json)).toMatchObject({ event_type: 'motion_resolved_by_founder', data: { reason } });
    expect(bytes(entry!.json)).toBeGreaterThan(12_000);
    expect(bytes(entry!.json)).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
  });

  /** Files `count` motions (the third argument of `motion` from `first` on) and has the Founder resolve each with `reason`; their ids. */
  async function resolveMotions(count: number, first: number, reason: string): Promise<string[]> {
    const resolved: string[] = [];
    for (let index = 0; index < count; index++) {
      const pom = await challenge('motion_propose');
      const filed = await motion(pom, 0, first + index).submit();
      const motion_id = harness.succeeded(filed).motion_id as string;
      const body = { motion_id, reason };
      const outcome = await signedSubmit(
        'enactment_resolve',
        under.founder.agent_id,
        '/enactment/resolve',
        body,
        body,
      ).submit();
      expect(outcome.ok).toBe(true);
      resolved.push(motion_id);
    }
    return resolved;
  }

  it('publishes a Dispatch with as many disclosures as its entry holds, the rest in the next one, in order', async () => {
    // Eleven resolutions with the longest reason: about 6 kB each in a Dispatch's text, more than one entry holds.
    const reason = '\uffff'.repeat(2000);
    const resolved = await resolveMotions(11, 1, reason);
    const dispatch = () => signedSubmit('enactment_dispatch', under.founder.agent_id, '/enactment/dispatch', {}, {});
    const first = await dispatch().submit();
    const second = await dispatch().submit();
    const texts = [first, second].map((outcome) => {
      if (!outcome.ok) throw new Error(outcome.code);
      expect(bytes(outcome.entries[0]!.json)).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
      return outcome.result.text as string;
    });
    const drained = [first, second].map((outcome) => outcome.ok && outcome.result.disclosures_drained);
    // Twelve disclosures in all: the resolve of the previous test, then these eleven.
    expect(drained[0]).toBeGreaterThanOrEqual(9);
    expect((drained[0] as number) + (drained[1] as number)).toBe(12);
    const order = resolved.map((motion_id) => texts.join('\n').indexOf(motion_id));
    expect(order.every((at, index) => at > 0 && (index === 0 || at > order[index - 1]!))).toBe(true);
    expect(texts[1]).toContain(resolved.at(-1));
    expect(under.engine.state.governance.disclosures).toEqual([]);
  });

  it("counts the Founder's note into the Dispatch's entry: the longest note, in four-byte characters, leaves room for fewer disclosures", async () => {
    const reason = '\uffff'.repeat(2000);
    await resolveMotions(10, 100, reason);
    // Eight bytes a character: four in data, four more in the proof's body.
    const body = { note: '\u{1F600}'.repeat(2000) };
    const published = await signedSubmit(
      'enactment_dispatch',
      under.founder.agent_id,
      '/enactment/dispatch',
      body,
      body,
    ).submit();
    if (!published.ok) throw new Error(published.code);
    const entry = published.entries[0]!;
    expect(JSON.parse(entry.json).data.note).toBe(body.note);
    expect(bytes(entry.json)).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
    expect(published.result.disclosures_drained).toBeLessThan(10);
    expect(under.engine.state.governance.disclosures).toHaveLength(
      10 - (published.result.disclosures_drained as number),
    );
    const rest = await signedSubmit(
      'enactment_dispatch',
      under.founder.agent_id,
      '/enactment/dispatch',
      {},
      {},
    ).submit();
    expect(rest.ok && rest.result.disclosures_drained).toBe(10 - (published.result.disclosures_drained as number));
  });

  it('leaves every entry of this ledger under the cap', () => {
    const [largest] = largestEntries(under);
    expect(largest!.bytes).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
    expect(largest!.bytes).toBeGreaterThan(LEDGER_PROOF_BYTES_MAX);
  });
});

describe('over HTTP', () => {
  let society: TestSociety;
  afterAll(async () => society?.destroy());

  it('answers 413 PAYLOAD_TOO_LARGE to a motion whose entry would be over the cap, within the body limit, and records nothing', async () => {
    society = await startTestSociety();
    const member = await join(society, 'verbose');
    const head = society.store.ledgerHead().seq;
    // 15,000 double quotes: about 30 kB as sent, 60 kB once escaped into the proof.
    const refused = await member.client
      .act('motion_propose', { title: 'Quotes', body: '"'.repeat(15_000), changes: [] })
      .catch((error) => error);
    expect([refused.status, refused.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(society.store.ledgerHead().seq).toBe(head);
    const filed = await member.client.act<any>('motion_propose', {
      title: 'Quotes',
      body: '"'.repeat(9_000),
      changes: [],
    });
    expect(filed.result.motion_id).toMatch(/^M-/);
    const page = await request(society.url, `/api/v1/ledger?from=${filed.ledger.first_seq}&limit=1`);
    expect(page.body.entries[0].event_type).toBe('motion_filed');
    expect(bytes(JSON.stringify(page.body.entries[0]))).toBeLessThanOrEqual(LEDGER_ENTRY_BYTES_MAX);
  });
});
