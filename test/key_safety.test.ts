import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import canonicalizeJson from 'canonicalize';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignatureVerifier } from '../api/signature_verifier.js';
import { agentIdOf, isPrimeOrderKey } from '../engine/identity.js';
import { generateKey, keyFromSeed, signText, verifyText, type AgentKey } from '../client/keys.js';
import { LedgerChecker, type WireEntry } from '../client/ledger_check.js';
import { HEADER_SIGNATURE, canonicalBody, sha256Hex, signingString } from '../client/protocol.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { isPrimeOrderKey as clientIsPrimeOrderKey } from '../client/strict_ed25519.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { fetchNonce, rawSigned, request } from './helpers/signed.js';
import {
  L,
  P,
  fromLittleEndian,
  littleEndian,
  mixedOrderKey,
  nonCanonicalSmallOrderKeys,
  smallOrderKeys,
  toBase64url,
  withUnusedBitsSet,
} from './helpers/weak_keys.js';

/** RFC 8032 section 7.1, test 1: the valid pair of the vectors, signing the empty message. */
const RFC_KEY = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const RFC_SIGNATURE = '5VZDAMNgrHKQhuLMgG6CioSHfx645dl02HPgZSJJAVVfuIIVkKM7rMYeOXAc-bRr0lv18FlbviRlUUFDjnoQCw';
/** The identity point as a key, and the signature R = identity, S = 0 that it accepts for every message. */
const IDENTITY_KEY = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const CONSTANT_SIGNATURE = 'AQ' + 'A'.repeat(84);

/** Pinned here and listed in docs/protocol.md; the test recomputes each from noble. */
const SMALL_ORDER_KEYS = [
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA3o',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIA',
  'JuiVj8KyJ7BFw_SJ8u-Y8NXfrAXTxjM5sTgCiG1T_AU',
  '7P_______________________________________38',
  'JuiVj8KyJ7BFw_SJ8u-Y8NXfrAXTxjM5sTgCiG1T_IU',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA_o',
];
const NON_CANONICAL_SMALL_ORDER_KEYS = [
  'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIA',
  '7v_______________________________________38',
  '7v________________________________________8',
  '7f________________________________________8',
  '7P________________________________________8',
  '7f_______________________________________38',
];
/** The RFC key plus a point of order 8. */
const MIXED_ORDER_KEY = 'kVgxKpqNbjs0yJHW1hRE-LghHFEX660VvbC9aLB-AkU';
/** y = p + 3: the y >= p spelling of a point (itself of mixed order, like every point with y < 19). */
const HIGH_Y_KEY = '8P_______________________________________38';
const UNUSED_BITS_SIGNATURE = '5VZDAMNgrHKQhuLMgG6CioSHfx645dl02HPgZSJJAVVfuIIVkKM7rMYeOXAc-bRr0lv18FlbviRlUUFDjnoQCx';
const S_PLUS_L_SIGNATURE = '5VZDAMNgrHKQhuLMgG6CioSHfx645dl02HPgZSJJAVVMjHhyqgZOBJ27MBP78pOA0lv18FlbviRlUUFDjnoQGw';

const WEAK_KEYS = [...SMALL_ORDER_KEYS, ...NON_CANONICAL_SMALL_ORDER_KEYS, MIXED_ORDER_KEY, HIGH_Y_KEY];

function opensslVerifies(pubkey: string, message: Uint8Array, signature: string): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pubkey }, format: 'jwk' });
  return verify(null, message, key, Buffer.from(signature, 'base64url'));
}

describe('key and signature vectors (docs/protocol.md)', () => {
  const docs = readFileSync('docs/protocol.md', 'utf8');

  it('computes the eight small-order encodings and their lenient spellings from noble, as listed', () => {
    expect(smallOrderKeys()).toEqual(SMALL_ORDER_KEYS);
    expect(nonCanonicalSmallOrderKeys()).toEqual(NON_CANONICAL_SMALL_ORDER_KEYS);
    expect(mixedOrderKey(Buffer.from(RFC_KEY, 'base64url'))).toBe(MIXED_ORDER_KEY);
    expect(toBase64url(littleEndian(P + 3n))).toBe(HIGH_Y_KEY);
    const s = fromLittleEndian(Buffer.from(RFC_SIGNATURE, 'base64url').subarray(32));
    expect(
      toBase64url(Buffer.concat([Buffer.from(RFC_SIGNATURE, 'base64url').subarray(0, 32), littleEndian(s + L)])),
    ).toBe(S_PLUS_L_SIGNATURE);
    expect(withUnusedBitsSet(RFC_SIGNATURE)).toBe(UNUSED_BITS_SIGNATURE);
  });

  it('lists every vector in docs/protocol.md', () => {
    for (const vector of [
      ...WEAK_KEYS,
      RFC_KEY,
      RFC_SIGNATURE,
      IDENTITY_KEY,
      UNUSED_BITS_SIGNATURE,
      S_PLUS_L_SIGNATURE,
    ])
      expect(docs).toContain(vector);
    expect(docs).toContain('"AQ" + "A" x 84');
  });

  it('are keys OpenSSL takes, which is why the service judges them itself', () => {
    for (const key of WEAK_KEYS)
      expect(() => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key }, format: 'jwk' }), key).not.toThrow();
    // The hole: the identity key with R = identity, S = 0 verifies any message at all.
    expect(opensslVerifies(IDENTITY_KEY, Buffer.from('any message'), CONSTANT_SIGNATURE)).toBe(true);
    expect(opensslVerifies(RFC_KEY, new Uint8Array(), UNUSED_BITS_SIGNATURE)).toBe(true);
  });

  it('judges every weak key weak and the valid key sound, in the engine and in the client alike', () => {
    for (const key of WEAK_KEYS) {
      expect(isPrimeOrderKey(key), key).toBe(false);
      expect(clientIsPrimeOrderKey(key), key).toBe(false);
    }
    for (const key of [RFC_KEY, withUnusedBitsSet(RFC_KEY)]) {
      expect(isPrimeOrderKey(key)).toBe(key === RFC_KEY);
      expect(clientIsPrimeOrderKey(key)).toBe(key === RFC_KEY);
    }
  });

  it('leaves no prime-order point a second spelling, so comparing accepted keys as strings compares points', () => {
    // The only other spellings lenient decoders take are y + p for y < 19 and the sign bit on x = 0.
    for (let y = 0n; y < 19n; y++) {
      let point: ed.Point;
      try {
        point = ed.Point.fromBytes(littleEndian(y), true);
      } catch {
        continue;
      }
      expect(!point.is0() && point.isTorsionFree(), `y = ${y}`).toBe(false);
    }
  });

  it('verifies the valid pair and refuses the identity forgery, S + L and unused bits, server and client alike', async () => {
    const verifier = new SignatureVerifier();
    const empty = new Uint8Array();
    expect(verifier.verify(RFC_KEY, '', RFC_SIGNATURE)).toBe(true);
    expect(await verifyText(RFC_KEY, '', RFC_SIGNATURE)).toBe(true);
    expect(opensslVerifies(RFC_KEY, empty, S_PLUS_L_SIGNATURE)).toBe(false);
    for (const [key, signature] of [
      [IDENTITY_KEY, CONSTANT_SIGNATURE],
      [RFC_KEY, S_PLUS_L_SIGNATURE],
      [RFC_KEY, UNUSED_BITS_SIGNATURE],
    ] as const) {
      expect(verifier.verify(key, '', signature), `${key} ${signature}`).toBe(false);
      expect(await verifyText(key, '', signature), `${key} ${signature}`).toBe(false);
    }
    for (const key of SMALL_ORDER_KEYS) expect(await verifyText(key, 'x', CONSTANT_SIGNATURE)).toBe(false);
  });

  it("refuses, like the server, a signature whose R carries torsion, which noble's cofactored check accepts", async () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i);
    const key = await keyFromSeed(seed);
    const { scalar } = await ed.utils.getExtendedPublicKeyAsync(seed);
    const message = new TextEncoder().encode('signed by the key holder, R twisted by a point of order 8');
    const r = 123456789n;
    const twisted_r = ed.Point.BASE.multiply(r)
      .add(ed.Point.fromBytes(Buffer.from(SMALL_ORDER_KEYS[1]!, 'base64url')))
      .toBytes();
    const k =
      fromLittleEndian(
        await ed.hashes.sha512Async(ed.etc.concatBytes(twisted_r, Buffer.from(key.public_key, 'base64url'), message)),
      ) % L;
    const signature = toBase64url(ed.etc.concatBytes(twisted_r, littleEndian((r + k * scalar) % L)));
    expect(
      await ed.verifyAsync(Buffer.from(signature, 'base64url'), message, Buffer.from(key.public_key, 'base64url')),
    ).toBe(true);
    expect(opensslVerifies(key.public_key, message, signature)).toBe(false);
    expect(await verifyText(key.public_key, new TextDecoder().decode(message), signature)).toBe(false);
  });

  it('agrees with OpenSSL on valid and altered signatures', async () => {
    for (let i = 0; i < 12; i++) {
      const key = await generateKey();
      const text = `message ${i}`;
      const signature = await signText(key, text);
      const bytes = Buffer.from(signature, 'base64url');
      bytes[i % 64]! ^= 1 << (i % 8);
      for (const candidate of [signature, toBase64url(bytes)]) {
        expect(await verifyText(key.public_key, text, candidate)).toBe(
          opensslVerifies(key.public_key, Buffer.from(text), candidate),
        );
      }
    }
  });
});

describe('over HTTP', () => {
  let society: TestSociety;
  let url: string;
  let some_key: AgentKey;

  beforeAll(async () => {
    society = await startTestSociety();
    url = society.url;
    some_key = await generateKey();
  });
  afterAll(async () => society.destroy());
  afterEach(() => expect(society.bugs).toEqual([]));

  function registration(pubkey: string, handle: string, backup_pubkey: string | null = null) {
    return { pubkey, handle, declared_runtime: '', backup_pubkey };
  }

  /** The attacker's registration: a weak key, under its derived id, with the constant signature. */
  function registerWeak(pubkey: string, handle: string) {
    return rawSigned(url, {
      path: '/api/v1/register',
      body: registration(pubkey, handle),
      key: some_key,
      agent_id: agentIdOf(pubkey),
      headers: { [HEADER_SIGNATURE]: CONSTANT_SIGNATURE },
    });
  }

  async function refusalOf(promise: Promise<unknown>): Promise<TesseraError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TesseraError);
    return error as TesseraError;
  }

  function snapshot() {
    return { head: society.store.ledgerHead().seq, agents: society.engine.state.agents.size };
  }

  it('refuses every small-order and non-canonical key at registration with 400 WEAK_KEY and changes nothing', async () => {
    const before = snapshot();
    for (const [index, key] of WEAK_KEYS.filter((key) => key !== MIXED_ORDER_KEY).entries()) {
      const response = await registerWeak(key, `weak-${index}`);
      expect([response.status, response.body.error, response.body.field], key).toEqual([400, 'WEAK_KEY', 'pubkey']);
      expect(society.engine.state.agents.has(agentIdOf(key))).toBe(false);
    }
    expect(snapshot()).toEqual(before);
  });

  it('refuses a mixed-order key at registration with WEAK_KEY, even under a signature OpenSSL accepts', async () => {
    // The key is the RFC key A' plus a point T of order 8; with A's secret, [S]B - [k]A = R - [k]T, which is R when 8 divides k.
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const { scalar } = await ed.utils.getExtendedPublicKeyAsync(seed);
    const agent_id = agentIdOf(MIXED_ORDER_KEY);
    const nonce = await fetchNonce(url, agent_id);
    const key_bytes = Buffer.from(MIXED_ORDER_KEY, 'base64url');
    const r = 987654321n;
    const r_bytes = ed.Point.BASE.multiply(r).toBytes();
    for (let attempt = 0; ; attempt++) {
      const body = registration(MIXED_ORDER_KEY, `mixed-${attempt}`);
      const text = new TextEncoder().encode(
        signingString({
          method: 'POST',
          path: '/api/v1/register',
          agent_id,
          nonce,
          body_sha256: await sha256Hex(canonicalBody(body)),
        }),
      );
      const k = fromLittleEndian(await ed.hashes.sha512Async(ed.etc.concatBytes(r_bytes, key_bytes, text))) % L;
      if (k % 8n !== 0n) continue;
      const signature = toBase64url(ed.etc.concatBytes(r_bytes, littleEndian((r + k * scalar) % L)));
      expect(opensslVerifies(MIXED_ORDER_KEY, text, signature)).toBe(true);
      const before = snapshot();
      const response = await rawSigned(url, {
        path: '/api/v1/register',
        body,
        key: some_key,
        agent_id,
        nonce,
        headers: { [HEADER_SIGNATURE]: signature },
      });
      expect([response.status, response.body.error, response.body.field]).toEqual([400, 'WEAK_KEY', 'pubkey']);
      expect(snapshot()).toEqual(before);
      break;
    }
  });

  it('no longer lets the identity key register or act, and three spellings of it make no agent', async () => {
    const spellings = [
      IDENTITY_KEY,
      '7v_______________________________________38',
      'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIA',
    ];
    for (const [index, key] of spellings.entries())
      expect((await registerWeak(key, `identity-${index}`)).body.error).toBe('WEAK_KEY');
    expect(spellings.some((key) => society.engine.state.agents.has(agentIdOf(key)))).toBe(false);
    const act = await rawSigned(url, {
      path: '/api/v1/act',
      body: { act: 'world_look', challenge_id: null, puzzle_solution: null, payload: {} },
      key: some_key,
      agent_id: agentIdOf(IDENTITY_KEY),
      headers: { [HEADER_SIGNATURE]: CONSTANT_SIGNATURE },
    });
    expect([act.status, act.body.error]).toEqual([404, 'UNKNOWN_AGENT']);
  });

  it('refuses a weak backup key at registration before the nonce is spent', async () => {
    const key = await generateKey();
    const nonce = await fetchNonce(url, key.agent_id);
    const before = snapshot();
    for (const weak of WEAK_KEYS) {
      const response = await rawSigned(url, {
        path: '/api/v1/register',
        body: registration(key.public_key, 'weak-backup', weak),
        key,
        nonce,
      });
      expect([response.status, response.body.error, response.body.field], weak).toEqual([
        400,
        'WEAK_KEY',
        'backup_pubkey',
      ]);
    }
    expect(snapshot()).toEqual(before);
    const fixed = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key.public_key, 'weak-backup', null),
      key,
      nonce,
    });
    expect(fixed.status).toBe(200);
  });

  it('refuses a weak key as backup key and as rotation target, by route and by act', async () => {
    const key = await generateKey();
    const backup = await generateKey();
    const client = new TesseraClient(url, key);
    await client.register('rotating', { backup_pubkey: backup.public_key });
    const before = snapshot();
    for (const weak of WEAK_KEYS) {
      for (const attempt of [
        () => client.registerBackupKey(weak),
        () => client.act('key_backup_register', { backup_pubkey: weak }),
        () => client.rotateKey(backup, weak),
      ]) {
        const error = await refusalOf(attempt());
        expect([error.status, error.code], weak).toEqual([400, 'WEAK_KEY']);
      }
    }
    expect(snapshot()).toEqual(before);
    expect(society.engine.state.agents.get(key.agent_id)).toMatchObject({
      pubkey: key.public_key,
      backup_pubkey: backup.public_key,
      key_generation: 0,
    });
  });

  it('refuses weak keys in the engine too, whatever reaches it', async () => {
    const agent = await generateKey();
    await new TesseraClient(url, agent).register('engine-direct');
    for (const weak of [IDENTITY_KEY, MIXED_ORDER_KEY, HIGH_Y_KEY]) {
      const submissions = [
        { act: 'register', actor: agentIdOf(weak), payload: registration(weak, 'engine-weak') },
        { act: 'register', actor: some_key.agent_id, payload: registration(some_key.public_key, 'engine-weak', weak) },
        { act: 'key_backup_register', actor: agent.agent_id, payload: { backup_pubkey: weak } },
      ];
      for (const submission of submissions)
        expect(await society.engine.submit(submission)).toMatchObject({ ok: false, code: 'WEAK_KEY' });
    }
  });

  it('refuses a signature whose last character has unused bits set, with 401 SIG_INVALID and nothing spent', async () => {
    const key = await generateKey();
    const client = new TesseraClient(url, key);
    await client.register('unused-bits');
    const backup = await generateKey();
    const body = { backup_pubkey: backup.public_key };
    const nonce = await fetchNonce(url, key.agent_id);
    const text = signingString({
      method: 'POST',
      path: '/api/v1/keys/backup',
      agent_id: key.agent_id,
      nonce,
      body_sha256: await sha256Hex(canonicalBody(body)),
    });
    const signature = await signText(key, text);
    const altered = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      body,
      key,
      nonce,
      headers: { [HEADER_SIGNATURE]: withUnusedBitsSet(signature) },
    });
    expect([altered.status, altered.body.error]).toEqual([401, 'SIG_INVALID']);
    expect(society.engine.state.agents.get(key.agent_id)?.backup_pubkey).toBeNull();
    const proper = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      body,
      key,
      nonce,
      headers: { [HEADER_SIGNATURE]: signature },
    });
    expect(proper.status).toBe(200);
  });

  describe('the ledger check', () => {
    let entries: WireEntry[];
    let holder: AgentKey;

    beforeAll(async () => {
      holder = await generateKey();
      await new TesseraClient(url, holder).register('ledger-holder');
      entries = (await request(url, '/api/v1/ledger?limit=1000')).body.entries;
    });

    async function firstProblem(chain: WireEntry[]) {
      const checker = new LedgerChecker();
      for (const entry of chain) {
        const problem = await checker.check(entry);
        if (problem) return problem;
      }
      return undefined;
    }

    async function chained(
      entry: Omit<WireEntry, 'seq' | 'prev_hash' | 'hash'>,
      after: WireEntry[],
    ): Promise<WireEntry> {
      const unhashed = { ...entry, seq: after.length + 1, prev_hash: after[after.length - 1]!.hash };
      return { ...unhashed, hash: await sha256Hex(canonicalizeJson(unhashed)!) };
    }

    async function rehashedFrom(chain: WireEntry[], index: number): Promise<WireEntry[]> {
      const copy = structuredClone(chain);
      for (let i = index; i < copy.length; i++) {
        const { seq: _seq, prev_hash: _prev, hash: _hash, ...content } = copy[i]!;
        copy[i] = await chained(content, copy.slice(0, i));
      }
      return copy;
    }

    it('passes the ledger as served', async () => {
      expect(entries.length).toBeGreaterThan(5);
      expect(await firstProblem(entries)).toBeUndefined();
    });

    it('fails a ledger on which the identity key registered itself, at that seq', async () => {
      const pubkey = IDENTITY_KEY;
      const agent_id = agentIdOf(pubkey);
      const body = canonicalBody(registration(pubkey, 'forged-identity'));
      const forged = await chained(
        {
          at: entries[entries.length - 1]!.at,
          event_type: 'agent_registered',
          actor: agent_id,
          data: {
            agent_id,
            handle: 'forged-identity',
            pubkey,
            backup_pubkey: null,
            declared_runtime: '',
            position: { x: 0, y: 0 },
            ap: 10,
          },
          proof: {
            method: 'POST',
            path: '/api/v1/register',
            nonce: 'forged-nonce-0000000000',
            body,
            signature: CONSTANT_SIGNATURE,
          },
        },
        entries,
      );
      expect(await firstProblem([...entries, forged])).toEqual({
        seq: entries.length + 1,
        reason: expect.stringContaining('prime-order'),
      });
    });

    it('fails a ledger on which a member registered a weak backup key, signed by its own key, at that seq', async () => {
      const body = canonicalBody({ backup_pubkey: MIXED_ORDER_KEY });
      const nonce = 'forged-nonce-1111111111';
      const text = signingString({
        method: 'POST',
        path: '/api/v1/keys/backup',
        agent_id: holder.agent_id,
        nonce,
        body_sha256: await sha256Hex(body),
      });
      const forged = await chained(
        {
          at: entries[entries.length - 1]!.at,
          event_type: 'key_backup_registered',
          actor: holder.agent_id,
          data: { agent_id: holder.agent_id, backup_pubkey: MIXED_ORDER_KEY, replaced_backup_pubkey: null },
          proof: { method: 'POST', path: '/api/v1/keys/backup', nonce, body, signature: await signText(holder, text) },
        },
        entries,
      );
      expect(await firstProblem([...entries, forged])).toEqual({
        seq: entries.length + 1,
        reason: 'data.backup_pubkey is not a canonical prime-order ed25519 key',
      });
    });

    it('fails a ledger whose proof carries a signature with unused bits set, at that seq', async () => {
      const index = entries.findIndex((entry) => entry.proof !== undefined);
      const forged = structuredClone(entries);
      forged[index]!.proof!.signature = withUnusedBitsSet(forged[index]!.proof!.signature);
      expect(await firstProblem(await rehashedFrom(forged, index))).toEqual({
        seq: index + 1,
        reason: 'proof signature does not verify',
      });
    });
  });
});
