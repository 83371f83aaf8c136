import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import canonicalizeJson from 'canonicalize';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyFromSeed, signText, verifyText } from '../client/keys.js';
import { LedgerChecker, type WireEntry } from '../client/ledger_check.js';
import { agentIdOf, canonicalBody, sha256Hex, signingString } from '../client/protocol.js';
import { isPrimeOrderKey } from '../client/strict_ed25519.js';
import { fromBase64, toBase64 } from '../client/tlog/base64.js';
import { cosignatureTimestamp } from '../client/tlog/cosignature.js';
import { nobleHasher } from '../client/tlog/hasher.js';
import { verifyConsistency } from '../client/tlog/merkle.js';
import { openNote } from '../client/tlog/note.js';
import { noteVerifier, parseVerifierKey } from '../client/tlog/note_keys.js';
import { verifyReceipt } from '../client/tlog/receipt.js';
import { parseTilePath, tileHashes } from '../client/tlog/tile_path.js';
import { openCheckpoint } from '../client/tlog/trusted_checkpoint.js';
import { SignatureVerifier } from '../api/signature_verifier.js';
import { canonicalJson as engineCanonicalJson } from '../engine/canonical.js';
import {
  agentIdOf as engineAgentIdOf,
  isPrimeOrderKey as engineIsPrimeOrderKey,
  StrongPubkeySchema,
} from '../engine/identity.js';
import { EVENT_TYPES } from '../engine/events/event_catalogue.js';
import { makeVectors, writeVectors, VECTOR_FILES, type VectorFile } from './vectors/make_vectors.js';

/*
 * docs/vectors/: conformance vectors for implementations in any language. (1) They are
 * made again here and must equal the committed files byte for byte, so they cannot drift
 * from the code; (2) each is checked with the client's own verification code.
 */

const DIR = join(import.meta.dirname, '..', 'docs', 'vectors');
const REGENERATE =
  'Regenerate them with `UPDATE_VECTORS=1 npx vitest run test/conformance_vectors.test.ts` (or `npm run vectors` after a build), and review the diff: a change here is a change to the wire contract.';

let made: Record<VectorFile, string>;
const vectors = {} as Record<VectorFile, any>;

beforeAll(async () => {
  made = await makeVectors();
  if (process.env.UPDATE_VECTORS === '1') writeVectors(fileURLToPath(new URL('..', import.meta.url)), made);
  for (const file of VECTOR_FILES) vectors[file] = JSON.parse(readFileSync(join(DIR, file), 'utf8'));
}, 120_000);

describe('the committed vectors', () => {
  it.each(VECTOR_FILES)('docs/vectors/%s is what the code makes now', (file) => {
    const committed = readFileSync(join(DIR, file), 'utf8');
    if (committed !== made[file]) expect.fail(`docs/vectors/${file} differs from what the code makes. ${REGENERATE}`);
  });

  it('are a few hundred KB at most', () => {
    const total = VECTOR_FILES.reduce((sum, file) => sum + Buffer.byteLength(made[file]), 0);
    expect(total).toBeLessThan(400_000);
  });
});

describe('canonical_json.json', () => {
  it('canonicalises each input to the text and hash given', async () => {
    for (const vector of vectors['canonical_json.json'].cases) {
      const canonical = canonicalBody(JSON.parse(vector.input));
      expect(canonical, vector.name).toBe(vector.canonical);
      expect(Buffer.from(canonical, 'utf8').toString('hex'), vector.name).toBe(vector.canonical_utf8_hex);
      expect(await sha256Hex(canonical), vector.name).toBe(vector.sha256);
    }
  });

  it('is what the server writes too', () => {
    for (const vector of vectors['canonical_json.json'].cases)
      expect(engineCanonicalJson(JSON.parse(vector.input)), vector.name).toBe(vector.canonical);
  });
});

describe('signing.json', () => {
  it('derives each agent id from its key, and each key from its seed', async () => {
    for (const vector of vectors['signing.json'].agent_ids) {
      const key = await keyFromSeed(Uint8Array.from(Buffer.from(vector.seed_hex, 'hex')));
      expect(key.public_key).toBe(vector.public_key);
      expect(Buffer.from(vector.public_key, 'base64url').toString('hex')).toBe(vector.public_key_hex);
      expect(await sha256Hex(Buffer.from(vector.public_key_hex, 'hex'))).toBe(vector.public_key_sha256);
      expect(await agentIdOf(vector.public_key)).toBe(vector.agent_id);
      expect(vector.agent_id).toBe(`ag_${vector.public_key_sha256.slice(0, 16)}`);
    }
  });

  it('builds each signing string and verifies each signature', async () => {
    const seeds = new Map<string, string>(
      vectors['signing.json'].agent_ids.map((v: any) => [v.public_key, v.seed_hex] as [string, string]),
    );
    for (const vector of vectors['signing.json'].cases) {
      if (vector.body_json !== undefined) expect(canonicalBody(vector.body_json)).toBe(vector.body);
      expect(await sha256Hex(vector.body)).toBe(vector.body_sha256);
      const text = signingString(vector);
      expect(text, vector.name).toBe(vector.signing_string);
      expect(await verifyText(vector.public_key, text, vector.signature), vector.name).toBe(true);
      const key = await keyFromSeed(Uint8Array.from(Buffer.from(seeds.get(vector.public_key)!, 'hex')));
      expect(await signText(key, text), vector.name).toBe(vector.signature);
    }
  });

  it('refuses each rejected signature', async () => {
    for (const vector of vectors['signing.json'].rejected_signatures)
      expect(await verifyText(vector.public_key, vector.signing_string, vector.signature), vector.name).toBe(false);
  });

  it("agrees with the server's identity and signature checks", () => {
    const server = new SignatureVerifier();
    for (const vector of vectors['signing.json'].agent_ids)
      expect(engineAgentIdOf(vector.public_key)).toBe(vector.agent_id);
    for (const vector of vectors['signing.json'].cases)
      expect(server.verify(vector.public_key, vector.signing_string, vector.signature), vector.name).toBe(true);
    for (const vector of vectors['signing.json'].rejected_signatures)
      expect(server.verify(vector.public_key, vector.signing_string, vector.signature), vector.name).toBe(false);
  });
});

describe('weak_keys.json', () => {
  it('judges each key as the vector says', async () => {
    const keys = vectors['weak_keys.json'].keys;
    expect(keys.filter((key: any) => !key.valid).length).toBeGreaterThan(15);
    for (const vector of keys) expect(isPrimeOrderKey(vector.public_key), vector.reason).toBe(vector.valid);
  });

  it("agrees with the server's rule", () => {
    for (const vector of vectors['weak_keys.json'].keys) {
      expect(engineIsPrimeOrderKey(vector.public_key), vector.reason).toBe(vector.valid);
      expect(StrongPubkeySchema.safeParse(vector.public_key).success, vector.reason).toBe(vector.valid);
    }
  });
});

describe('ledger_proofs.json', () => {
  it('carries both proof forms, each of which checks', async () => {
    const proofs = vectors['ledger_proofs.json'].proofs;
    expect(new Set(proofs.map((p: any) => p.form))).toEqual(new Set(['body', 'body_sha256']));
    for (const vector of proofs) {
      const entry = JSON.parse(vector.entry_text) as WireEntry;
      expect(entry).toEqual(vector.entry);
      expect(entry).toEqual(vectors['ledger.json'].entries[entry.seq - 1]);
      const { hash, ...unhashed } = entry;
      expect(canonicalizeJson(unhashed)).toBe(vector.entry_hash_input);
      expect(await sha256Hex(vector.entry_hash_input)).toBe(hash);
      const proof = entry.proof!;
      expect('body' in proof !== 'body_sha256' in proof).toBe(true);
      const body_sha256 = proof.body !== undefined ? await sha256Hex(proof.body) : proof.body_sha256!;
      expect(body_sha256).toBe(vector.body_sha256);
      if (vector.form === 'body_sha256') expect(entry.data.payload_sha256).toBe(body_sha256);
      const text = signingString({ ...proof, agent_id: entry.actor, body_sha256 });
      expect(text).toBe(vector.signing_string);
      expect(await verifyText(vector.signer_public_key, text, proof.signature), entry.event_type).toBe(true);
    }
  });
});

describe('every_event.json', () => {
  it('is a valid ledger holding every event type of the catalogue', async () => {
    const ledger = vectors['every_event.json'];
    const checker = new LedgerChecker();
    for (const entry of ledger.entries) expect(await checker.check(structuredClone(entry))).toBeUndefined();
    expect([checker.checked, checker.head_hash]).toEqual([ledger.verdict.entries_checked, ledger.verdict.head.hash]);
    const types = new Set(ledger.entries.map((entry: WireEntry) => entry.event_type));
    expect(EVENT_TYPES.filter((type) => !types.has(type))).toEqual([]);
  });
});

describe('ledger.json', () => {
  async function firstProblem(chain: WireEntry[]) {
    const checker = new LedgerChecker();
    for (const entry of chain) {
      const problem = await checker.check(structuredClone(entry));
      if (problem) return problem;
    }
    return { seq: 0, reason: 'none', checked: checker.checked, head: checker.head_hash };
  }

  it('is a valid ledger, covering the event types it should', async () => {
    const ledger = vectors['ledger.json'];
    const verdict = await firstProblem(ledger.entries);
    expect(verdict).toMatchObject({ seq: 0, checked: ledger.verdict.entries_checked, head: ledger.verdict.head.hash });
    expect(ledger.verdict.valid).toBe(true);
    const types = new Set(ledger.entries.map((entry: WireEntry) => entry.event_type));
    for (const type of [
      'society_founded',
      'agent_registered',
      'key_backup_registered',
      'key_rotated',
      'agent_moved',
      'ap_spent',
      'terrain_dug',
      'block_placed',
      'block_broken',
      'resource_sent',
      'resource_received',
      'pom_challenge_issued',
      'bulletin_posted',
      'aether_sent',
      'motion_filed',
      'motion_cosponsored',
      'motion_opened',
      'vote_cast',
      'p0_refusal',
    ])
      expect(types.has(type), type).toBe(true);
  });

  it('holds the first and last pages as served', () => {
    const ledger = vectors['ledger.json'];
    const [first, last] = ledger.pages.map((page: any) => JSON.parse(page.body));
    expect(first.entries).toEqual(ledger.entries.slice(0, 2));
    expect(first.next_from).toBe(3);
    expect(last.entries).toEqual(ledger.entries.slice(-2));
    expect(last.next_from).toBe(null);
    for (const page of [first, last]) {
      expect(page.head).toEqual(ledger.verdict.head);
      expect(typeof page.recipe).toBe('string');
    }
  });

  it('fails each tampered copy at exactly its stated seq', async () => {
    const ledger = vectors['ledger.json'];
    expect(ledger.tampered.length).toBeGreaterThanOrEqual(10);
    for (const tampered of ledger.tampered) {
      const chain = [...ledger.entries.slice(0, tampered.keep), ...tampered.tail];
      const problem = await firstProblem(chain);
      expect({ name: tampered.name, seq: problem.seq, reason: problem.reason }).toEqual({
        name: tampered.name,
        seq: tampered.fail_seq,
        reason: tampered.reason,
      });
    }
  });
});

describe('transparency.json', () => {
  it('has a leaf hash for every entry, and the level-0 tile holds them', async () => {
    const log = vectors['transparency.json'];
    const texts: string[] = vectors['ledger_proofs.json'].proofs.map((p: any) => p.entry_text);
    const leaves = new Map<number, string>(log.leaves.map((l: any) => [l.seq, l.leaf_hash] as [number, string]));
    for (const text of texts)
      expect(toBase64(nobleHasher.leaf(new TextEncoder().encode(text)))).toBe(leaves.get(JSON.parse(text).seq));
    // The served text of every entry: its JCS text without `hash`, then ,"hash":"<hex>" before the closing brace.
    const entries: WireEntry[] = vectors['ledger.json'].entries;
    expect(log.leaves.map((l: any) => l.seq)).toEqual(entries.map((e) => e.seq));
    for (const [i, entry] of entries.entries()) {
      const { hash, ...unhashed } = entry;
      const text = `${canonicalizeJson(unhashed)!.slice(0, -1)},"hash":"${hash}"}`;
      expect(toBase64(nobleHasher.leaf(new TextEncoder().encode(text))), `seq ${entry.seq}`).toBe(
        log.leaves[i].leaf_hash,
      );
    }
    for (const tile of log.tiles)
      expect(parseTilePath(tile.path)).toEqual({ level: tile.level, index: tile.index, width: tile.width });
    const tile = log.tiles.find((t: any) => t.level === 0);
    expect(tileHashes(fromBase64(tile.tile_base64)).map(toBase64)).toEqual(log.leaves.map((l: any) => l.leaf_hash));
  });

  it('opens every checkpoint with the log key', async () => {
    const log = vectors['transparency.json'];
    for (const checkpoint of log.checkpoints) {
      const opened = await openCheckpoint(checkpoint.note, log.log_vkey);
      expect(opened.ok).toBe(true);
      if (!opened.ok) continue;
      expect([opened.checkpoint.origin, opened.checkpoint.size, toBase64(opened.checkpoint.root)]).toEqual([
        log.origin,
        checkpoint.size,
        checkpoint.root_hash,
      ]);
    }
    expect((await openCheckpoint(log.checkpoints[0].note, log.cosignature.witness_vkey)).ok).toBe(false);
  });

  it('verifies every receipt offline, and refuses one with a changed entry', async () => {
    const log = vectors['transparency.json'];
    for (const { seq, receipt } of log.receipts) {
      const checked = await verifyReceipt(receipt, log.log_vkey);
      expect(checked.ok, `receipt of seq ${seq}`).toBe(true);
      expect(vectors['ledger.json'].entries[seq - 1]).toEqual(JSON.parse(receipt.entry));
    }
    const { receipt } = log.receipts[0];
    expect(
      (await verifyReceipt({ ...receipt, entry: receipt.entry.replace('"seq":1', '"seq":1 ') }, log.log_vkey)).ok,
    ).toBe(false);
  });

  it('verifies every consistency proof, and refuses one against the wrong root', async () => {
    const log = vectors['transparency.json'];
    expect(log.consistency.length).toBeGreaterThan(5);
    for (const c of log.consistency)
      expect(
        verifyConsistency(
          nobleHasher,
          c.old_size,
          c.new_size,
          fromBase64(c.old_root),
          fromBase64(c.new_root),
          c.proof.map(fromBase64),
        ),
        `${c.old_size} -> ${c.new_size}`,
      ).toBe(true);
    const c = log.consistency.find((x: any) => x.old_size !== x.new_size && x.old_size > 1);
    expect(
      verifyConsistency(
        nobleHasher,
        c.old_size,
        c.new_size,
        fromBase64(log.checkpoints[0].root_hash),
        fromBase64(c.new_root),
        c.proof.map(fromBase64),
      ),
    ).toBe(false);
  });

  it('verifies the witness cosignature with the witness key', async () => {
    const { cosignature, log_vkey } = vectors['transparency.json'];
    const verifiers = [
      noteVerifier(parseVerifierKey(log_vkey)),
      noteVerifier(parseVerifierKey(cosignature.witness_vkey)),
    ];
    const opened = await openNote(cosignature.cosigned_note, verifiers);
    expect(opened.text).toBe(cosignature.checkpoint_text);
    expect(opened.verified.map((s) => s.name)).toEqual([vectors['transparency.json'].origin, cosignature.witness_name]);
    expect(cosignatureTimestamp(opened.verified[1]!)).toBe(cosignature.timestamp);
    expect(cosignature.cosigned_note.endsWith(cosignature.line)).toBe(true);
    // The same line over another checkpoint does not verify.
    const other = vectors['transparency.json'].checkpoints[0].note + cosignature.line;
    await expect(openNote(other, verifiers)).rejects.toThrow(/invalid signature/);
  });
});
