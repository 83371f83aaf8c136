import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import canonicalizeJson from 'canonicalize';
import { canonicalJson, sha256Hex } from '../engine/canonical.js';
import type { EventType } from '../engine/events/event_catalogue.js';
import { canonicalEntry, chainEntry, entryHash, ledgerProof } from '../engine/ledger.js';
import { parseRecord, RecordProofError } from '../engine/store/record_bytes.js';

// Printable text in every script, and ASCII including control characters (escapes).
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
);
// Keys in any order, with the awkward ones: integer-like keys enumerate first in JavaScript, and "__proto__" is special to assignment.
const key = fc.oneof(text, fc.nat(20).map(String), fc.constant('__proto__'));
const json_value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const signed = { method: fc.constantFrom('POST', 'GET'), path: text, nonce: text, signature: text };
const sha256_hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
// Both forms an entry carries: the signed body itself, or its digest where the body must not be republished.
const proof = fc.oneof(
  fc.record({ ...signed, body: text }),
  fc.record({ ...signed, body_sha256: fc.oneof(sha256_hex, text) }),
);
const unhashed = fc.record(
  {
    seq: fc.nat(),
    prev_hash: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }),
    at: text,
    // Any text, not only the catalogue's types: the serialisation must escape whatever it is given.
    event_type: text as fc.Arbitrary<EventType>,
    actor: text,
    data: fc.dictionary(key, json_value, { maxKeys: 6 }),
    proof,
  },
  { requiredKeys: ['seq', 'prev_hash', 'at', 'event_type', 'actor', 'data'] },
);

describe('the canonical JSON fast path', () => {
  it('writes what the JCS library writes, for any JSON value, sorted or not', () => {
    fc.assert(
      fc.property(json_value, (value) => {
        expect(canonicalJson(value)).toBe(canonicalizeJson(value));
      }),
      { numRuns: 1000 },
    );
    // Integer-like keys enumerate first whatever their order; JCS sorts them as text.
    expect(canonicalJson({ '9': 1, '10': 2, a: 3 })).toBe('{"10":2,"9":1,"a":3}');
    expect(canonicalJson({ a: 1, b: { c: [1, 2, { d: null, e: 'x' }] } })).toBe(
      '{"a":1,"b":{"c":[1,2,{"d":null,"e":"x"}]}}',
    );
    expect(
      canonicalJson({ payload: { motion_id: 'M-1', choice: 'aye' }, act: 'vote_cast', puzzle_solution: null }),
    ).toBe('{"act":"vote_cast","payload":{"choice":"aye","motion_id":"M-1"},"puzzle_solution":null}');
    expect(canonicalJson({ b: -0, a: 1e21, c: 0.1 })).toBe('{"a":1e+21,"b":0,"c":0.1}');
    expect(() => canonicalJson({ b: 1, a: '\ud800' })).toThrow();
    expect(canonicalJson(JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}'))).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });
});

describe('the ledger entry canonicaliser', () => {
  it('writes exactly what the general JCS canonicaliser writes, for any entry', () => {
    fc.assert(
      fc.property(unhashed, (entry) => {
        expect(canonicalEntry(entry)).toBe(canonicalJson(entry));
      }),
      { numRuns: 500 },
    );
    const digest = {
      seq: 1,
      prev_hash: '0'.repeat(64),
      at: 'now',
      event_type: 'p0_refusal',
      actor: 'ag_1',
      data: {},
      proof: { signature: 's', path: '/p', nonce: 'n', method: 'POST', body_sha256: 'ab'.repeat(32) },
    };
    expect(canonicalEntry(digest)).toContain(
      `"proof":{"body_sha256":"${'ab'.repeat(32)}","method":"POST","nonce":"n","path":"/p","signature":"s"}`,
    );
    expect(canonicalEntry(digest)).toBe(canonicalJson(digest));
  });

  it("puts a signed request on the ledger as it was signed, or as its digest, which is the hash on the signing string's last line", () => {
    const request = {
      method: 'POST',
      path: '/api/v1/act',
      nonce: 'n0nce',
      body: '{"act":"motion_propose"}',
      signature: 'sig',
    };
    expect(ledgerProof(request, 'body')).toBe(request);
    expect(ledgerProof(request, 'digest')).toEqual({
      method: 'POST',
      path: '/api/v1/act',
      nonce: 'n0nce',
      body_sha256: sha256Hex(request.body),
      signature: 'sig',
    });
  });

  it('serves JSON that parses back to the entry with the hash of its canonical text', () => {
    fc.assert(
      fc.property(unhashed, fc.integer({ min: 0, max: 4_000_000_000_000 }), (entry, at_ms) => {
        const chained = chainEntry(
          { seq: entry.seq, hash: entry.prev_hash },
          at_ms,
          { event_type: entry.event_type, actor: entry.actor, data: entry.data },
          entry.proof,
        );
        const served = JSON.parse(chained.json);
        expect(served.hash).toBe(chained.hash);
        expect(entryHash(served)).toBe(chained.hash);
        expect(chained.json.slice(-66, -2)).toBe(chained.hash);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the proof a log record takes from its entry's text", () => {
  // Text that looks like the entry's own structure, to tempt the cut into a nested or quoted lookalike.
  const structural = fc.string({
    unit: fc.constantFrom(',"proof":{', ',"seq":', '"', '\\', '{', '}', ',', 'a'),
    maxLength: 12,
  });
  const hostile_text = fc.oneof(text, structural);

  it('is the proof of the entry parsed whole, or a refusal where that is not a signed body of the named actor', () => {
    fc.assert(
      fc.property(
        unhashed,
        fc.record({ proof, seq: json_value }, { requiredKeys: [] }),
        fc.option(hostile_text),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (entry, lookalikes, claimed_actor, at_ms) => {
          // "proof" and "seq" keys inside the data, which only the entry's own may be taken for.
          const data = { ...entry.data, ...lookalikes };
          const chained = chainEntry(
            { seq: entry.seq, hash: entry.prev_hash },
            at_ms,
            { event_type: entry.event_type, actor: entry.actor, data },
            entry.proof,
          );
          const actor = claimed_actor ?? entry.actor;
          const record = JSON.stringify({
            tick: 1,
            at_ms: 0,
            actions: [{ act: 'a', actor, payload: {}, proof_in_entry: { seq: chained.seq, hash: chained.hash } }],
          });
          const read = () => parseRecord(record, (seq) => (seq === chained.seq ? chained.json : undefined)).actions[0]!;
          const whole = JSON.parse(chained.json);
          if (whole.proof && 'body' in whole.proof && whole.actor === actor) {
            const { method, path, nonce, body, signature } = whole.proof;
            expect(read().proof).toStrictEqual({ method, path, nonce, body, signature });
          } else {
            expect(read).toThrow(RecordProofError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
