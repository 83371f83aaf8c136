import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import canonicalizeJson from 'canonicalize';
import { fromBase64url, toBase64url } from '../../client/base64url.js';
import { keyFromSeed, signText, type AgentKey } from '../../client/keys.js';
import { LedgerChecker, type Problem, type WireEntry } from '../../client/ledger_check.js';
import { agentIdOf, canonicalBody, sha256Hex, signingString } from '../../client/protocol.js';
import { toBase64 } from '../../client/tlog/base64.js';
import { cosigner, SIGNATURE_TYPE_COSIGNATURE_V1 } from '../../client/tlog/cosignature.js';
import { formatSignatureLine } from '../../client/tlog/note.js';
import { formatSignerKey, formatVerifierKey, SIGNATURE_TYPE_ED25519 } from '../../client/tlog/note_keys.js';
import { keyId } from '../../client/tlog/note.js';
import { tilePath } from '../../client/tlog/tile_path.js';
import { Checkpoints } from '../../api/log/checkpoints.js';
import { loadLogKey } from '../../api/log/log_key.js';
import { TransparencyLog } from '../../api/log/transparency_log.js';
import { LOG_KEY_FILE } from '../../api/data_folder.js';
import { LedgerPages } from '../../api/ledger_pages.js';
import type { Engine, MemoryStore } from '../../engine/index.js';
import { signedEngine, type ScriptLine } from '../helpers/signed_engine.js';
import { everyActSociety } from '../helpers/every_act_society.js';
import {
  AP_SPENDING_ACTS,
  AP_SPENT_LEDGER_REVISION,
  EVENT_CATALOGUE,
  EVENT_TYPES,
  FOLLOW_UP_OPENERS,
} from '../../engine/events/event_catalogue.js';
import { ACT_ROUTES, GENERIC_ACT_ROUTE } from '../../engine/events/signed_routes.js';
import { DIRECTIONS, type Direction } from '../../engine/world/geometry.js';
import {
  L,
  littleEndian,
  fromLittleEndian,
  mixedOrderKey,
  nonCanonicalSmallOrderKeys,
  smallOrderKeys,
  withUnusedBitsSet,
} from '../helpers/weak_keys.js';

/**
 * The conformance vectors of docs/vectors/: every file made here, from fixed seeds and a
 * fixed clock, by the project's own code (the client's signing and hashing, a real Engine
 * over a MemoryStore, the server's checkpoint signer). Nothing random, nothing read from
 * the clock: the same code always makes the same bytes, which test/conformance_vectors.test.ts
 * compares with the committed files. Regenerate with `npm run vectors` (after a build), or
 * `UPDATE_VECTORS=1 npx vitest run test/conformance_vectors.test.ts`.
 */

export const VECTOR_FILES = [
  'canonical_json.json',
  'signing.json',
  'weak_keys.json',
  'ledger_proofs.json',
  'ledger.json',
  'transparency.json',
  'event_catalogue.json',
  'every_event.json',
] as const;
export type VectorFile = (typeof VECTOR_FILES)[number];

/** A 32-byte seed named by a label: SHA-256 of "tessera-vectors/" + label. Documented so anyone can rebuild a key. */
export async function seedOf(label: string): Promise<Uint8Array> {
  return Uint8Array.from(Buffer.from(await sha256Hex(`tessera-vectors/${label}`), 'hex'));
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * The file text: JSON as the repository's formatter (Biome, pinned in package.json) writes
 * it, so that `npm run format` leaves the files as they are and they stay byte for byte
 * what this makes. Only the layout is Biome's; the values are JSON.stringify's.
 */
export function fileText(file: VectorFile, value: unknown): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=docs/vectors/${file}`], {
    // From the repository's root, whose biome.json sets the layout.
    cwd: join(dirname(biome), '..', '..', '..', '..'),
    input: `${JSON.stringify(value, null, 2)}\n`,
    encoding: 'utf8',
  });
}

/** Where a vector file is written besides docs/vectors: the Python client ships its own copy of the recipe's tables. */
const COPIES: Partial<Record<VectorFile, string>> = {
  'event_catalogue.json': 'clients/python/tessera/event_catalogue.json',
};

/** Writes every file under the repository's root (docs/vectors/ and the copies), returning the paths written. */
export function writeVectors(root: string, made: Record<VectorFile, string>): string[] {
  const written: string[] = [];
  for (const file of VECTOR_FILES) {
    for (const path of [`docs/vectors/${file}`, COPIES[file]].filter((path) => path !== undefined)) {
      writeFileSync(join(root, path), made[file]);
      written.push(path);
    }
  }
  return written;
}

export async function makeVectors(): Promise<Record<VectorFile, string>> {
  const society = await growLedger();
  return {
    'canonical_json.json': fileText('canonical_json.json', await canonicalVectors()),
    'signing.json': fileText('signing.json', await signingVectors()),
    'weak_keys.json': fileText('weak_keys.json', await weakKeyVectors()),
    'ledger_proofs.json': fileText('ledger_proofs.json', await ledgerProofVectors(society)),
    'ledger.json': fileText('ledger.json', await ledgerVectors(society)),
    'transparency.json': fileText('transparency.json', await transparencyVectors(society)),
    'event_catalogue.json': fileText('event_catalogue.json', eventCatalogueVectors()),
    'every_event.json': fileText('every_event.json', await everyEventVectors()),
  };
}

/** A valid ledger holding every event type of the catalogue: the every-act society of test/helpers/every_act_society.ts. */
async function everyEventVectors() {
  const { keys, entries, society } = await everyActSociety();
  const problem = await firstProblemOf(entries);
  if (problem) throw new Error(`the every-act ledger fails at ${problem.seq}: ${problem.reason}`);
  return {
    description:
      'A ledger in which every write act of the catalogue was applied once, so that it holds every event type (docs/vectors/event_catalogue.json), as GET /api/v1/ledger serves its entries. It must pass the recipe of docs/protocol.md ("The ledger"), ending at `head`. Keys are made from labels: the seed is SHA-256("tessera-every-act/" + label). Where an act needed a place in the world, the member was put there (a ruin with a relic under it), as a test arranges a world; the entries are what the engine wrote.',
    keys: Object.fromEntries(
      Object.entries(keys).map(([label, key]) => [label, { public_key: key.public_key, agent_id: key.agent_id }]),
    ),
    script: society.script,
    verdict: {
      valid: true,
      entries_checked: entries.length,
      head: { seq: entries.length, hash: entries.at(-1)!.hash },
    },
    entries,
  };
}

/**
 * The ledger recipe's tables as data: every event type's class, the acts that open it
 * with the fields equal to their payload, which spend AP, what may follow what, and the
 * routes that name an act. A verifier in any language loads this instead of keeping
 * its own copy (the Python client in clients/python does).
 */
function eventCatalogueVectors() {
  return {
    description:
      'The event catalogue (engine/events/event_catalogue.ts) as data: how the ledger recipe judges each event type. See docs/protocol.md#the-ledger.',
    ap_spent_ledger_revision: AP_SPENT_LEDGER_REVISION,
    generic_act_route: GENERIC_ACT_ROUTE,
    act_routes: ACT_ROUTES,
    ap_spending_acts: [...AP_SPENDING_ACTS].sort(),
    follow_up_openers: Object.fromEntries(FOLLOW_UP_OPENERS),
    events: Object.fromEntries(EVENT_TYPES.map((event_type) => [event_type, EVENT_CATALOGUE[event_type]])),
  };
}

// ---------------------------------------------------------------------------------------
// (a) canonical JSON

/** Inputs as JSON text, so that -0, 1e21 and escapes reach the implementation as written. */
const CANONICAL_CASES: { name: string; input: string; note?: string }[] = [
  { name: 'key order by UTF-16 code units, recursively', input: '{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":null}}' },
  {
    name: 'RFC 8785 section 3.2.3: keys sorted as UTF-16, not as code points',
    input:
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    note: 'U+1F600 sorts before U+FB33 because its UTF-16 form starts with 0xD83D',
  },
  {
    name: 'astral keys against BMP keys above the surrogates',
    input: '{"\\uffff":1,"\\ud800\\udc00":2,"\\ue000":3,"z":4}',
  },
  {
    name: 'numbers in their shortest ECMAScript form',
    input: '[1.0,-0,1e21,1e20,1e-7,1e-6,0.1,0.2,0.30000000000000004,333333333.33333329,4.50,100,-1.5e-10,5e-324]',
  },
  {
    name: 'integers at and beyond 2^53 (parsed as IEEE 754 doubles)',
    input:
      '[9007199254740991,9007199254740992,9007199254740993,-9007199254740993,18446744073709551616,1.7976931348623157e308]',
    note: '9007199254740993 has no double of its own: it becomes 9007199254740992',
  },
  {
    name: 'escapes: only what JSON requires, lowercase \\u00XX for other controls',
    input: '{"s":"tab\\there \\"quoted\\" back\\\\slash \\u0001 \\u001f \\b\\f\\n\\r \\/ \\u007f"}',
  },
  {
    name: 'non-ASCII text stays UTF-8, U+2028 and U+2029 unescaped',
    input: '{"text":"zo\\u00eb \\u6f22\\u5b57 \\ud83d\\ude00 \\ud834\\udd1e \\u2028\\u2029 </script>"}',
  },
  {
    name: 'whitespace dropped, literals kept',
    input: ' { "t" : true , "f" : false , "n" : null , "e" : [ ] , "o" : { } } ',
  },
  {
    name: 'a registration body',
    input:
      '{"pubkey":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","handle":"zo\\u00eb","declared_runtime":"","backup_pubkey":null}',
  },
  {
    name: 'an act body',
    input:
      '{"payload":{"title":"Plant a forest","body":"Line one\\nLine two"},"act":"bulletin_post","puzzle_solution":null,"challenge_id":null}',
  },
  { name: 'a bare string', input: '"\\u00e9\\u0000"' },
  { name: 'the empty object', input: '{}' },
];

async function canonicalVectors() {
  const cases = [];
  for (const { name, input, note } of CANONICAL_CASES) {
    const canonical = canonicalBody(JSON.parse(input));
    cases.push({
      name,
      ...(note ? { note } : {}),
      input,
      canonical,
      canonical_utf8_hex: hex(new TextEncoder().encode(canonical)),
      sha256: await sha256Hex(canonical),
    });
  }
  return {
    description:
      'RFC 8785 (JCS) canonical JSON. Parse `input` (JSON text, numbers as IEEE 754 doubles), serialise it canonically: the UTF-8 bytes must be `canonical` (hex: `canonical_utf8_hex`) and their SHA-256 `sha256` (lowercase hex).',
    cases,
  };
}

// ---------------------------------------------------------------------------------------
// (b) signing strings, signatures and agent ids

async function signingVectors() {
  const rfc8032 = await keyFromSeed(
    Uint8Array.from(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex')),
  );
  const alice = await keyFromSeed(await seedOf('alice'));
  const keys = [
    { label: 'RFC 8032 section 7.1 TEST 1', key: rfc8032 },
    { label: 'alice', key: alice },
  ];
  const agent_ids = [];
  for (const { label, key } of keys) {
    const raw = fromBase64url(key.public_key);
    agent_ids.push({
      label,
      seed_hex: hex(fromBase64url(key.private_key)),
      public_key: key.public_key,
      public_key_hex: hex(raw),
      public_key_sha256: await sha256Hex(raw),
      agent_id: await agentIdOf(key.public_key),
    });
  }
  const requests: { name: string; key: AgentKey; method: string; path: string; nonce: string; body?: unknown }[] = [
    {
      name: 'registration (POST /api/v1/register), signed by the key it registers',
      key: rfc8032,
      method: 'POST',
      path: '/api/v1/register',
      nonce: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      body: { pubkey: rfc8032.public_key, handle: 'vector', declared_runtime: '', backup_pubkey: null },
    },
    {
      name: 'an act with non-ASCII text',
      key: alice,
      method: 'POST',
      path: '/api/v1/act',
      nonce: 'ZXhwaXJ5LWNvdW50ZXItbWFjLXZlY3Rvci0wMDAx',
      body: {
        act: 'bulletin_post',
        challenge_id: null,
        puzzle_solution: null,
        payload: { title: 'Grüße 😀', body: 'Line one\nLine two "quoted"' },
      },
    },
    {
      name: 'a signed GET with a query and no body: the empty string is hashed',
      key: alice,
      method: 'get',
      path: '/api/v1/ledger?from=1&limit=2',
      nonce: 'bm8tYm9keS1ub25jZS12ZWN0b3ItMDAwMDAwMDAw',
    },
  ];
  const cases = [];
  for (const request of requests) {
    const agent_id = request.key.agent_id;
    const body = canonicalBody(request.body);
    const body_sha256 = await sha256Hex(body);
    const text = signingString({
      method: request.method,
      path: request.path,
      agent_id,
      nonce: request.nonce,
      body_sha256,
    });
    cases.push({
      name: request.name,
      public_key: request.key.public_key,
      method: request.method,
      path: request.path,
      agent_id,
      nonce: request.nonce,
      ...(request.body === undefined ? {} : { body_json: request.body }),
      body,
      body_sha256,
      signing_string: text,
      signature: await signText(request.key, text),
    });
  }
  // Signatures a verifier must refuse, over the first case's signing string.
  const base = cases[0]!;
  const signature = fromBase64url(base.signature);
  const s = fromLittleEndian(signature.subarray(32));
  const malleated = Uint8Array.from(signature);
  malleated.set(littleEndian(s + L), 32);
  const flipped = Uint8Array.from(signature);
  flipped[0]! ^= 0x01;
  const rejections = [
    {
      name: 'S + L: the same signature with a non-reduced S (malleability), refused',
      signature: toBase64url(malleated),
    },
    { name: 'one bit of R flipped', signature: toBase64url(flipped) },
    {
      name: 'the right signature with a non-canonical last base64url character',
      signature: withUnusedBitsSet(base.signature),
    },
    { name: 'the right signature with base64 padding', signature: `${base.signature}==` },
    {
      name: 'the right signature over the signing string with a trailing newline',
      signature: await signText(rfc8032, `${base.signing_string}\n`),
    },
  ].map((rejection) => ({
    ...rejection,
    public_key: base.public_key,
    signing_string: base.signing_string,
    valid: false,
  }));
  return {
    description:
      'The society-sig-v1 signing string and Ed25519 signatures. agent_id = "ag_" + the first 16 hex digits of SHA-256(raw 32-byte public key). Keys and signatures are base64url without padding. signing_string = "society-sig-v1\\n" + upper-case method + "\\n" + path + "\\n" + agent_id + "\\n" + nonce + "\\n" + body_sha256 (no trailing newline); body is the canonical body text ("" without a body). Ed25519 is deterministic: signing `signing_string` with the seed must give `signature` exactly.',
    agent_ids,
    cases,
    rejected_signatures: rejections,
  };
}

// ---------------------------------------------------------------------------------------
// (c) weak keys

async function weakKeyVectors() {
  const alice = await keyFromSeed(await seedOf('alice'));
  const small = smallOrderKeys();
  const keys: { public_key: string; valid: boolean; reason: string }[] = [
    { public_key: alice.public_key, valid: true, reason: 'a prime-order point, canonical encoding (control)' },
    ...small.map((public_key, i) => ({
      public_key,
      valid: false,
      reason: `small-order point: [${i}]T for T of order 8 (order ${[1, 8, 4, 8, 2, 8, 4, 8][i]}), canonical encoding`,
    })),
    ...nonCanonicalSmallOrderKeys().map((public_key) => ({
      public_key,
      valid: false,
      reason: 'small-order point, non-canonical encoding (y + p, or the sign bit set with x = 0)',
    })),
    {
      public_key: mixedOrderKey(fromBase64url(alice.public_key)),
      valid: false,
      reason: 'mixed order: a prime-order point plus a point of order 8 (not torsion-free)',
    },
    {
      public_key: withUnusedBitsSet(alice.public_key),
      valid: false,
      reason: 'the control key with unused low bits of the last base64url character set: not canonical base64url',
    },
    { public_key: `${alice.public_key}=`, valid: false, reason: 'the control key with base64 padding' },
    {
      public_key: alice.public_key.replace(/-/g, '+').replace(/_/g, '/'),
      valid: false,
      reason: 'the control key in the standard base64 alphabet',
    },
    { public_key: toBase64url(fromBase64url(alice.public_key).subarray(0, 31)), valid: false, reason: '31 bytes' },
    { public_key: toBase64url(new Uint8Array(33)), valid: false, reason: '33 bytes' },
    { public_key: toBase64url(notOnCurve()), valid: false, reason: 'y < p but no x: not a point of the curve' },
    {
      public_key: toBase64url(littleEndian(2n ** 255n - 1n)),
      valid: false,
      reason: 'y = 2^255 - 1 > p: a non-canonical field element',
    },
  ];
  return {
    description:
      'Ed25519 public keys an implementation must refuse (valid: false) or accept (valid: true) as an agent key: only the canonical base64url (no padding, no unused bits) of the canonical 32-byte encoding (y < p, no sign bit when x = 0) of a point of prime order L is a key. docs/protocol.md, "Strong keys and canonical signatures".',
    keys: keys.map((key) => ({
      ...key,
      public_key_hex: (() => {
        try {
          return hex(Buffer.from(key.public_key, 'base64url'));
        } catch {
          return null;
        }
      })(),
    })),
  };
}

/** The smallest y (little-endian encoding, sign bit 0) that decodes to no point. */
function notOnCurve(): Uint8Array {
  const p = 2n ** 255n - 19n;
  const d = (-121665n * modInverse(121666n, p)) % p;
  for (let y = 2n; ; y++) {
    // x^2 = (y^2 - 1) / (d y^2 + 1): no square root means no point.
    const u = (y * y - 1n + p) % p;
    const v = (((d * y * y + 1n) % p) + p) % p;
    const x2 = (u * modInverse(v, p)) % p;
    if (x2 !== 0n && modPow(x2, (p - 1n) / 2n, p) !== 1n) return littleEndian(y);
  }
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  for (; exponent > 0n; exponent >>= 1n, base = (base * base) % modulus)
    if (exponent & 1n) result = (result * base) % modulus;
  return result;
}

function modInverse(a: bigint, p: bigint): bigint {
  return modPow(((a % p) + p) % p, p - 2n, p);
}

// ---------------------------------------------------------------------------------------
// (e) a small ledger, grown by a real Engine

export const ENGINE_START_MS = Date.parse('2026-11-21T10:00:00Z');
export const LOG_ORIGIN = 'vectors.tessera.example/tessera';
export const WITNESS_NAME = 'witness.vectors.tessera.example';
/** When the witness cosigned, POSIX seconds. */
export const WITNESS_TIME = Math.floor(Date.parse('2026-11-21T12:00:00Z') / 1000);

export interface GrownLedger {
  entries: WireEntry[];
  /** The entries' exact texts as the ledger serves them (store.ledgerJson). */
  texts: string[];
  keys: Record<string, AgentKey>;
  engine: Engine;
  store: MemoryStore;
  /** The full, readable log of what was asked, for the README. */
  script: ScriptLine[];
}

let grown: Promise<GrownLedger> | undefined;

/** Once per process: the ledger is the same every time anyway. */
export function growLedger(): Promise<GrownLedger> {
  grown ??= growLedgerOnce();
  return grown;
}

async function growLedgerOnce(): Promise<GrownLedger> {
  const founder = await keyFromSeed(await seedOf('founder'));
  const alice = await keyFromSeed(await seedOf('alice'));
  const bob = await keyFromSeed(await seedOf('bob'));
  const alice_backup = await keyFromSeed(await seedOf('alice-backup'));
  const bob_backup = await keyFromSeed(await seedOf('bob-backup'));
  const bob_new = await keyFromSeed(await seedOf('bob-rotated'));
  const keys = { founder, alice, bob, alice_backup, bob_backup, bob_new };
  const { engine, store, script, perform, must } = await signedEngine({
    genesis: {
      society_name: 'Vectors',
      world_seed: 'conformance-vectors',
      founder_pubkey: founder.public_key,
      params: { ap_at_registration: 300, ap_cap: 1000 },
    },
    start_ms: ENGINE_START_MS,
    nonce_label: 'tessera-vectors/nonce',
  });

  for (const [member, backup, handle] of [
    [alice, null, 'alice'],
    [bob, bob_backup, 'bob'],
  ] as const) {
    await must(
      perform(member, 'register', {
        pubkey: member.public_key,
        handle,
        declared_runtime: `vectors ${handle}`,
        backup_pubkey: backup?.public_key ?? null,
      }),
      `register ${handle}`,
    );
  }
  await must(perform(alice, 'key_backup_register', { backup_pubkey: alice_backup.public_key }), 'backup');
  // World acts: a step each way that the terrain allows (each costs AP: ap_spent follows).
  const directions = Object.keys(DIRECTIONS) as Direction[];
  let moved = 0;
  for (const direction of directions) {
    if (moved >= 2) break;
    if ((await perform(alice, 'world_move', { path: [direction] })).ok) moved++;
  }
  const here = engine.state.world.agents.get(alice.agent_id)!;
  const cells = ([[0, 0], ...Object.values(DIRECTIONS)] as [number, number][]).map(([dx, dy]) => ({
    x: here.x + dx,
    y: here.y + dy,
  }));
  const dug: { x: number; y: number }[] = [];
  for (const cell of cells) {
    if (dug.length >= 2) break;
    if ((await perform(alice, 'world_dig', { ...cell, z: null })).ok) dug.push(cell);
  }
  // Bob walks over (paths of up to 16 steps), and alice gives him one unit of what she dug.
  const bob_at = engine.state.world.agents.get(bob.agent_id)!;
  for (let attempt = 0; attempt < 6; attempt++) {
    const dx = here.x - bob_at.x;
    const dy = here.y - bob_at.y;
    const distance = Math.max(Math.abs(dx), Math.abs(dy));
    if (distance <= 3) break;
    const diagonal = Math.min(Math.abs(dx), Math.abs(dy));
    const straight = distance - diagonal;
    const ns = dy < 0 ? 'n' : 's';
    const ew = dx < 0 ? 'w' : 'e';
    const steps = [
      ...Array<Direction>(diagonal).fill(`${ns}${ew}` as Direction),
      ...Array<Direction>(straight).fill(Math.abs(dx) > Math.abs(dy) ? ew : ns),
    ].slice(0, Math.min(16, distance - 3));
    if ((await perform(bob, 'world_move', { path: steps })).ok) continue;
    if (!(await perform(bob, 'world_move', { path: [...steps].reverse() })).ok) break;
  }
  const resource = Object.keys(here.inventory)
    .sort()
    .find((name) => (here.inventory[name] ?? 0) > 0);
  if (resource) await perform(alice, 'world_give', { to: bob.agent_id, resource, amount: 1 });
  // What is left of the dig goes back on top: whichever block the dig yielded.
  for (let block_id = 1; dug[0] && block_id <= 8; block_id++)
    if ((await perform(alice, 'world_place_block', { ...dug[0], z: null, block_id })).ok) break;
  if (dug[0]) await perform(alice, 'world_break_block', { ...dug[0], z: null });
  for (const cell of cells) if ((await perform(alice, 'world_gather', cell)).ok) break;
  await must(
    perform(alice, 'bulletin_post', { title: 'Hello, Tessera', body: 'First notice: grüße 😀' }),
    'bulletin_post',
  );
  await must(perform(alice, 'aether_send', { body: 'Anyone out there?' }), 'aether_send');
  const motion = await must(
    perform(alice, 'motion_propose', { title: 'Longer nights', body: 'A test motion.', changes: [] }),
    'motion_propose',
  );
  const motion_id = motion.motion_id as string;
  await perform(bob, 'motion_cosponsor', { motion_id });
  await must(perform(alice, 'motion_open', { motion_id }), 'motion_open');
  await must(perform(alice, 'vote_cast', { motion_id, choice: 'aye' }), 'vote_cast alice');
  await must(perform(bob, 'vote_cast', { motion_id, choice: 'nay' }), 'vote_cast bob');
  // A Bedrock filing: refused, and recorded as a p0_refusal whose proof is in digest form.
  const refused = await perform(bob, 'motion_propose', {
    title: 'Quiet ledger',
    body: '',
    changes: [{ op: 'amend_axiom', article_id: 'A4', text: 'Axiom four shall read: nothing is recorded' }],
  });
  if (refused.ok) throw new Error('a Bedrock filing was accepted');
  const refusal = engine.state.ledger_head.seq;
  script.push({ act: 'motion_propose', actor: bob.agent_id, refused: refused.code, seqs: [refusal, refusal] });
  // Recovery: bob's backup key installs a new primary.
  await must(perform(bob_backup, 'key_rotate', { new_pubkey: bob_new.public_key }, bob.agent_id), 'key_rotate');
  await must(
    perform(bob_new, 'aether_send', { body: 'Signed with my new key.' }, bob.agent_id),
    'aether_send (new key)',
  );
  await engine.drain();

  const texts: string[] = [];
  for (let seq = 1; seq <= engine.state.ledger_head.seq; seq++) texts.push(store.ledgerJson(seq)!);
  return { entries: texts.map((text) => JSON.parse(text) as WireEntry), texts, keys, engine, store, script };
}

/** How a tampered ledger is made from the valid one: valid.entries[0 .. keep) then `tail`. */
interface Tampered {
  name: string;
  description: string;
  fail_seq: number;
  keep: number;
  tail: WireEntry[];
}

async function rehashFrom(chain: WireEntry[], from_index: number): Promise<WireEntry[]> {
  for (let i = from_index; i < chain.length; i++) {
    const entry = chain[i]!;
    entry.seq = i + 1;
    entry.prev_hash = i > 0 ? chain[i - 1]!.hash : '0'.repeat(64);
    const { hash: _old, ...unhashed } = entry;
    entry.hash = await sha256Hex(canonicalizeJson(unhashed)!);
  }
  return chain;
}

async function ledgerVectors(society: GrownLedger) {
  const { entries } = society;
  const find = (test: (entry: WireEntry) => boolean, what: string): number => {
    const index = entries.findIndex(test);
    if (index < 0) throw new Error(`the vector ledger has no ${what}`);
    return index;
  };
  const tampered: Tampered[] = [];
  /** Edits a copy at `index`, rehashing from there on when `rehash` (an operator covering its tracks). */
  const edit = async (
    name: string,
    description: string,
    index: number,
    change: (chain: WireEntry[]) => void | Promise<void>,
    rehash: boolean,
  ) => {
    const chain = structuredClone(entries);
    await change(chain);
    if (rehash) await rehashFrom(chain, index);
    // The copy ends at the entry that must fail: what follows it cannot matter.
    tampered.push({ name, description, fail_seq: index + 1, keep: index, tail: chain.slice(index, index + 1) });
  };

  const bulletin = find((e) => e.event_type === 'bulletin_posted', 'bulletin');
  await edit(
    'data_changed',
    "a bulletin's title changed, nothing else: the entry's hash no longer matches its content",
    bulletin,
    (chain) => {
      chain[bulletin]!.data.title = 'Goodbye, Tessera';
    },
    false,
  );
  await edit(
    'data_changed_rehashed',
    "the same change with every hash and link recomputed from there on: the data no longer equals the signed body's",
    bulletin,
    (chain) => {
      chain[bulletin]!.data.title = 'Goodbye, Tessera';
    },
    true,
  );
  const vote = find((e) => e.event_type === 'vote_cast' && e.data.choice === 'aye', 'aye vote');
  await edit(
    'vote_flipped_rehashed',
    'an aye vote turned nay, rehashed: the data no longer equals the signed body',
    vote,
    (chain) => {
      chain[vote]!.data.choice = 'nay';
    },
    true,
  );
  const registration = find((e) => e.event_type === 'agent_registered' && e.seq > 2, 'registration');
  await edit(
    'prev_hash_broken',
    "an entry's prev_hash changed (its own hash recomputed): it no longer links to the entry before it",
    registration + 1,
    async (chain) => {
      const entry = chain[registration + 1]!;
      entry.prev_hash = 'f'.repeat(64);
      const { hash: _old, ...unhashed } = entry;
      entry.hash = await sha256Hex(canonicalizeJson(unhashed)!);
    },
    false,
  );
  const aether = find((e) => e.event_type === 'aether_sent', 'aether message');
  await edit(
    'signature_bad',
    "one character of a proof's signature changed, rehashed: the signature does not verify",
    aether,
    (chain) => {
      const proof = chain[aether]!.proof!;
      proof.signature = (proof.signature[0] === 'A' ? 'B' : 'A') + proof.signature.slice(1);
    },
    true,
  );
  const last = entries.length - 1;
  if (entries[last]!.event_type !== 'aether_sent') throw new Error('the ledger should end with an aether message');
  await edit(
    'old_key_after_rotation',
    "the last act's signer swapped for the key rotated away: re-signed by bob's old primary key, rehashed; after key_rotated only the new key signs",
    last,
    () => undefined,
    true,
  );
  {
    // Re-sign the last act with bob's old key (a valid signature by a key the agent no longer holds).
    const target = tampered.at(-1)!;
    const entry = target.tail[0]!;
    const proof = entry.proof as { method: string; path: string; nonce: string; body: string; signature: string };
    proof.signature = await signText(
      society.keys.bob!,
      signingString({ ...proof, agent_id: entry.actor, body_sha256: await sha256Hex(proof.body) }),
    );
    const chain = [...structuredClone(entries.slice(0, last)), entry];
    await rehashFrom(chain, last);
    target.tail = chain.slice(last, last + 1);
  }
  const spent = find((e) => e.event_type === 'ap_spent', 'ap_spent');
  await edit(
    'ap_spent_amount_wrong',
    "an ap_spent entry's amount raised by one, rehashed: it differs from the act's own data.ap_spent",
    spent,
    (chain) => {
      (chain[spent]!.data as { amount: number }).amount += 1;
    },
    true,
  );
  await edit(
    'ap_spent_removed',
    'the ap_spent entry behind an act deleted, the rest renumbered and rehashed: the act that spent AP has no ap_spent after it, so the entry now in its place fails',
    spent,
    (chain) => {
      chain.splice(spent, 1);
    },
    true,
  );
  await edit(
    'reordered',
    'two adjacent entries swapped, nothing recomputed: the first out of place has the wrong seq',
    registration,
    (chain) => {
      [chain[registration], chain[registration + 1]] = [chain[registration + 1]!, chain[registration]!];
    },
    false,
  );
  await edit(
    'reordered_rehashed',
    'an act and its ap_spent swapped, renumbered and rehashed: the ap_spent now comes before the act it is for',
    spent - 1,
    (chain) => {
      [chain[spent - 1], chain[spent]] = [chain[spent]!, chain[spent - 1]!];
    },
    true,
  );
  await edit(
    'entry_deleted',
    'an entry deleted, nothing recomputed: the next one has the wrong seq',
    bulletin,
    (chain) => {
      chain.splice(bulletin, 1);
    },
    false,
  );
  await edit(
    'nonce_replayed',
    "a member's earlier signed request appended again as a new entry, rehashed: a nonce used twice",
    entries.length,
    (chain) => {
      chain.push({ ...structuredClone(entries[aether]!) });
    },
    true,
  );
  const gift = find((e) => e.event_type === 'resource_sent', 'gift');
  await edit(
    'gift_redirected',
    "a gift's recipient (data.to) changed to the Founder, rehashed: the data no longer equals the signed body",
    gift,
    (chain) => {
      chain[gift]!.data.to = entries[1]!.actor;
    },
    true,
  );
  await edit(
    'gift_receipt_stolen',
    'the resource_received after a gift given to the Founder instead (its actor changed), rehashed: it is for an agent the gift does not name',
    gift + 2,
    (chain) => {
      if (chain[gift + 2]!.event_type !== 'resource_received') throw new Error('no resource_received after the gift');
      chain[gift + 2]!.actor = entries[1]!.actor;
      chain[gift + 2]!.data.agent_id = entries[1]!.actor;
    },
    true,
  );
  const small = smallOrderKeys()[1]!;
  const with_backup = find(
    (e) => e.event_type === 'agent_registered' && e.seq > 2 && e.data.backup_pubkey !== null,
    'registration with a backup key',
  );
  await edit(
    'weak_backup_key',
    "a registration's backup_pubkey replaced by a small-order point, rehashed: no ledger may register a weak key",
    with_backup,
    (chain) => {
      chain[with_backup]!.data.backup_pubkey = small;
    },
    true,
  );
  await edit(
    'proof_moved',
    "a bulletin's entry turned into a motion_opened (same proof, new event type and data), rehashed: the signed request asked for bulletin_post",
    bulletin,
    (chain) => {
      chain[bulletin]!.event_type = 'motion_opened';
      chain[bulletin]!.data = { agent_id: chain[bulletin]!.actor, motion_id: 'M-0001-0000' };
    },
    true,
  );
  const proofless = find((e) => e.event_type === 'vote_cast', 'vote');
  await edit(
    'proof_removed',
    "the proof of a vote removed, rehashed: an agent's act without its signature",
    proofless,
    (chain) => {
      delete chain[proofless]!.proof;
    },
    true,
  );

  for (const t of tampered) {
    const problem = await firstProblemOf([...entries.slice(0, t.keep), ...t.tail]);
    if (problem?.seq !== t.fail_seq)
      throw new Error(
        `${t.name}: the verifier fails at ${String(problem?.seq)}, not ${t.fail_seq}: ${problem?.reason}`,
      );
  }
  return {
    description:
      'A ledger grown by a real Engine (fixed keys, fixed clock, fixed nonces), as GET /api/v1/ledger serves its entries, and tampered copies. Verify `entries` with the recipe of docs/protocol.md ("The ledger", "Ledger revisions and ap_spent"): it must pass, ending at `head`. Each tampered copy is entries[0 .. keep) followed by `tail`; a verifier must accept every entry before `fail_seq` and refuse the entry at position `fail_seq` (1-based), which is the copy\'s last: entries after it cannot matter and are left out. `reason` is what this project\'s verifier says, for orientation only. `pages` holds the first and the last page of GET /api/v1/ledger at limit 2, their bodies exactly as served.',
    keys: Object.fromEntries(
      Object.entries(society.keys).map(([label, key]) => [
        label,
        { public_key: key.public_key, agent_id: key.agent_id },
      ]),
    ),
    script: society.script,
    verdict: {
      valid: true,
      entries_checked: entries.length,
      head: { seq: entries.length, hash: entries.at(-1)!.hash },
    },
    pages: servedPages(society),
    entries,
    tampered: await Promise.all(
      tampered.map(async (t) => ({
        name: t.name,
        description: t.description,
        keep: t.keep,
        fail_seq: t.fail_seq,
        reason: (await firstProblemOf([...entries.slice(0, t.keep), ...t.tail]))!.reason,
        tail: t.tail,
      })),
    ),
  };
}

/** The first and the last page of GET /api/v1/ledger at limit 2, as the server writes their bodies. */
function servedPages(society: GrownLedger) {
  const { store, entries } = society;
  const pages = new LedgerPages({
    head: () => store.ledgerHead(),
    page: (from, limit) => store.ledgerPage(from, limit),
  });
  return [1, entries.length - 1].map((from) => ({
    path: `/api/v1/ledger?from=${from}&limit=2`,
    body: pages.page(from, 2).body.toString('utf8'),
  }));
}

/** The first problem the client's verifier reports on a chain, if any. */
async function firstProblemOf(chain: WireEntry[]): Promise<Problem | undefined> {
  const checker = new LedgerChecker();
  for (const entry of chain) {
    const problem = await checker.check(structuredClone(entry));
    if (problem) return problem;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// (d) both proof forms

async function ledgerProofVectors(society: GrownLedger) {
  const { entries, texts } = society;
  const registered_keys = new Map<string, { primary: string; backup: string | null }>();
  const forms: unknown[] = [];
  const wanted = new Map([
    ['agent_registered', 'full body, signed by the key the entry registers (data.pubkey)'],
    ['vote_cast', 'full body of POST /api/v1/act with a Proof of Machine answer'],
    ['key_rotated', "full body, signed by the agent's backup key"],
    ['p0_refusal', 'digest form: body_sha256 instead of the refused body; equals data.payload_sha256'],
  ]);
  for (const [i, entry] of entries.entries()) {
    const note = wanted.get(entry.event_type);
    if (entry.event_type === 'agent_registered')
      registered_keys.set(entry.actor, {
        primary: String(entry.data.pubkey),
        backup: (entry.data.backup_pubkey as string | null) ?? null,
      });
    if (entry.event_type === 'key_backup_registered')
      registered_keys.get(entry.actor)!.backup = String(entry.data.backup_pubkey);
    const signer =
      entry.event_type === 'key_rotated'
        ? registered_keys.get(entry.actor)?.backup
        : registered_keys.get(entry.actor)?.primary;
    if (entry.event_type === 'key_rotated') registered_keys.get(entry.actor)!.primary = String(entry.data.new_pubkey);
    if (!note || !entry.proof || !signer) continue;
    wanted.delete(entry.event_type);
    const proof = entry.proof;
    const form = proof.body !== undefined ? 'body' : 'body_sha256';
    const body_sha256 = proof.body !== undefined ? await sha256Hex(proof.body) : proof.body_sha256!;
    forms.push({
      form,
      note,
      entry_text: texts[i],
      entry,
      signer_public_key: signer,
      body_sha256,
      signing_string: signingString({
        method: proof.method,
        path: proof.path,
        agent_id: entry.actor,
        nonce: proof.nonce,
        body_sha256,
      }),
      entry_hash_input: canonicalizeJson((({ hash: _hash, ...rest }) => rest)(entry)),
    });
  }
  if (wanted.size > 0) throw new Error(`no proof vector for ${[...wanted.keys()].join(', ')}`);
  return {
    description:
      "Ledger entries as the ledger serves them (`entry_text`, exact bytes), with both proof forms. For each: `hash` is SHA-256 of `entry_hash_input` (the JCS text of the entry without `hash`); the signing string is rebuilt with the entry's actor as agent id and, as its last line, SHA-256(proof.body) or proof.body_sha256 itself; `signature` verifies under `signer_public_key` (data.pubkey for agent_registered, the backup key for key_rotated, the primary key otherwise).",
    proofs: forms,
  };
}

// ---------------------------------------------------------------------------------------
// (f) receipts, consistency proofs, checkpoints and a cosignature

async function transparencyVectors(society: GrownLedger) {
  const { engine, store, entries } = society;
  const log_seed = await seedOf('log-key');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-vectors-'));
  let log_vkey: string;
  const sizes = [1, 2, 7, Math.min(13, entries.length), entries.length];
  const checkpoints: { size: number; root_hash: string; note: string }[] = [];
  let transparency: TransparencyLog;
  try {
    const log_public = fromBase64url((await keyFromSeed(log_seed)).public_key);
    const signer = {
      name: LOG_ORIGIN,
      key_id: keyId(LOG_ORIGIN, SIGNATURE_TYPE_ED25519, log_public),
      type: SIGNATURE_TYPE_ED25519,
      public_key: log_public,
      seed: log_seed,
    } as const;
    writeFileSync(join(dir, LOG_KEY_FILE), `${formatSignerKey(signer)}\n`);
    const log_key = await loadLogKey(dir, LOG_ORIGIN, true);
    log_vkey = log_key.vkey;
    // The server's own signer, shown one size after another as the durable ledger grows.
    let durable = sizes[0]!;
    const signed = new Checkpoints(log_key, engine.log_tree, () => durable);
    for (const size of sizes) {
      durable = size;
      const checkpoint = signed.latest();
      checkpoints.push({ size, root_hash: toBase64(checkpoint.root), note: checkpoint.note });
    }
    transparency = new TransparencyLog(engine.log_tree, signed, (seq) => store.ledgerJson(seq));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const receipts = [1, 2, Math.ceil(entries.length / 2), entries.length].map((seq) => ({
    seq,
    receipt: transparency.receipt(seq)!,
  }));
  const consistency = [];
  for (const [i, old] of checkpoints.entries())
    for (const newer of checkpoints.slice(i))
      consistency.push({
        old_size: old.size,
        new_size: newer.size,
        old_root: old.root_hash,
        new_root: newer.root_hash,
        proof: engine.log_tree.consistencyProof(old.size, newer.size).map(toBase64),
      });
  // A witness's cosignature (cosignature/v1) on the newest checkpoint, at a fixed time.
  const witness_seed = await seedOf('witness-key');
  const witness_public = fromBase64url((await keyFromSeed(witness_seed)).public_key);
  const witness = cosigner(WITNESS_NAME, witness_seed, witness_public, () => WITNESS_TIME);
  const newest = checkpoints.at(-1)!;
  const checkpoint_text = newest.note.slice(0, newest.note.indexOf('\n\n') + 1);
  const cosignature = await witness.sign(new TextEncoder().encode(checkpoint_text));
  const cosignature_line = formatSignatureLine(WITNESS_NAME, witness.key_id, cosignature);
  const leaves = society.texts.map((text) => ({
    seq: JSON.parse(text).seq as number,
    leaf_hash: toBase64(society.engine.log_tree.leafHash(JSON.parse(text).seq - 1)),
  }));
  return {
    description:
      'The ledger of ledger.json as a C2SP tlog-tiles transparency log (docs/transparency.md). Leaf i (0-based) is the exact UTF-8 text of the entry at seq i + 1 as served: the JCS text of the entry without `hash`, then `,"hash":"<hex>"` before its closing brace (so not the JCS of the whole entry, where hash would sort before prev_hash); leaf hash SHA-256(0x00 || text), node SHA-256(0x01 || left || right) (RFC 6962); hashes are standard padded base64. Checkpoints are signed notes (C2SP signed-note, tlog-checkpoint) by `log_vkey`; receipts verify offline against it; consistency proofs follow RFC 9162 section 2.1.4; the witness line is a cosignature/v1 (C2SP tlog-cosignature) by `witness_vkey` over "cosignature/v1\\ntime <t>\\n" + the checkpoint text.',
    origin: LOG_ORIGIN,
    log_vkey: log_vkey!,
    log_key_seed_hex: hex(log_seed),
    leaves,
    tiles: [
      {
        level: 0,
        index: 0,
        width: entries.length,
        path: tilePath({ level: 0, index: 0, width: entries.length }),
        tile_base64: toBase64(engine.log_tree.tile(0, 0, entries.length)),
      },
      { level: -1, index: 0, width: entries.length, path: tilePath({ level: -1, index: 0, width: entries.length }) },
    ],
    checkpoints,
    receipts,
    consistency,
    cosignature: {
      witness_name: WITNESS_NAME,
      witness_vkey: formatVerifierKey({
        name: WITNESS_NAME,
        type: SIGNATURE_TYPE_COSIGNATURE_V1,
        public_key: witness_public,
      }),
      witness_key_seed_hex: hex(witness_seed),
      timestamp: WITNESS_TIME,
      checkpoint_text,
      signed_message: `cosignature/v1\ntime ${WITNESS_TIME}\n${checkpoint_text}`,
      line: cosignature_line,
      cosigned_note: newest.note + cosignature_line,
    },
  };
}
