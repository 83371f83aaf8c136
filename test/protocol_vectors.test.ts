import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex as engineSha256 } from '../engine/canonical.js';
import { agentIdOf as engineAgentId, PUBKEY_PATTERN } from '../engine/identity.js';
import { isoAt } from '../engine/time.js';
import { fromBase64url, toBase64url } from '../client/base64url.js';
import { keyFromSeed, signText, verifyText } from '../client/keys.js';
import { agentIdOf, canonicalBody, sha256Hex, signingString } from '../client/protocol.js';

describe('JCS (RFC 8785) canonical bodies', () => {
  it('orders keys by UTF-16 code units, recursively', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    // RFC 8785 section 3.2.3's example: keys sorted as UTF-16, not as code points.
    expect(
      canonicalJson({
        '\u20ac': 'Euro Sign',
        '\r': 'Carriage Return',
        '\ufb33': 'Hebrew Letter Dalet With Dagesh',
        '1': 'One',
        '\ud83d\ude00': 'Emoji: Grinning Face',
        '\u0080': 'Control',
        '\u00f6': 'Latin Small Letter O With Diaeresis',
      }),
    ).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('escapes only what JSON requires and keeps non-ASCII text as UTF-8', () => {
    expect(canonicalJson({ s: 'tab\there "quoted" back\\slash \u0001 \u001f é 漢字 😀' })).toBe(
      '{"s":"tab\\there \\"quoted\\" back\\\\slash \\u0001 \\u001f é 漢字 😀"}',
    );
    expect(canonicalJson('\u2028\u2029</script>')).toBe('"\u2028\u2029</script>"');
  });

  it('writes numbers in their shortest ECMAScript form', () => {
    expect(canonicalJson([1.0, -0, 1e21, 1e-7, 333333333.33333329, 4.5, 0.000001, 100])).toBe(
      '[1,0,1e+21,1e-7,333333333.3333333,4.5,0.000001,100]',
    );
  });

  it('hashes the same canonical text on the server and in the client', async () => {
    const body = { handle: 'zoë', pubkey: 'x', declared_runtime: '', backup_pubkey: null };
    expect(canonicalBody(body)).toBe(canonicalJson(body));
    expect(await sha256Hex(canonicalBody(body))).toBe(engineSha256(canonicalJson(body)));
    expect(canonicalBody(undefined)).toBe('');
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('the signing string', () => {
  it('is six lines joined by \\n with no trailing newline, method upper-cased', () => {
    const text = signingString({
      method: 'post',
      path: '/api/v1/act?x=1',
      agent_id: 'ag_0123456789abcdef',
      nonce: 'n0nce-value_123456',
      body_sha256: 'ab'.repeat(32),
    });
    expect(text).toBe(
      `society-sig-v1\nPOST\n/api/v1/act?x=1\nag_0123456789abcdef\nn0nce-value_123456\n${'ab'.repeat(32)}`,
    );
    expect(text.endsWith('\n')).toBe(false);
  });

  it('matches a fixed vector: RFC 8032 test key 1 signing a registration', async () => {
    const seed = Uint8Array.from(
      Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'),
    );
    const key = await keyFromSeed(seed);
    expect(Buffer.from(fromBase64url(key.public_key)).toString('hex')).toBe(
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    );
    expect(key.agent_id).toBe('ag_' + engineSha256(fromBase64url(key.public_key)).slice(0, 16));
    const body = canonicalBody({ pubkey: key.public_key, handle: 'vector', declared_runtime: '', backup_pubkey: null });
    const text = signingString({
      method: 'POST',
      path: '/api/v1/register',
      agent_id: key.agent_id,
      nonce: 'AAAAAAAAAAAAAAAAAAAAAAAA',
      body_sha256: await sha256Hex(body),
    });
    const signature = await signText(key, text);
    // ed25519 is deterministic: the same key and text always give this signature.
    expect(signature).toBe(await signText(key, text));
    expect(signature).toHaveLength(86);
    expect(await verifyText(key.public_key, text, signature)).toBe(true);
    expect(await verifyText(key.public_key, text + ' ', signature)).toBe(false);
  });
});

describe('identity', () => {
  it('derives the same agent id in the engine and in the client', async () => {
    for (let i = 0; i < 20; i++) {
      const key = await keyFromSeed(Uint8Array.from({ length: 32 }, (_, j) => (i * 31 + j * 7) % 256));
      expect(PUBKEY_PATTERN.test(key.public_key)).toBe(true);
      expect(engineAgentId(key.public_key)).toBe(await agentIdOf(key.public_key));
      expect(key.agent_id).toMatch(/^ag_[0-9a-f]{16}$/);
    }
  });

  it('round-trips base64url without padding', () => {
    for (const length of [0, 1, 2, 3, 31, 32, 64]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) % 256);
      const text = toBase64url(bytes);
      expect(text).not.toMatch(/[=+/]/);
      expect(Array.from(fromBase64url(text))).toEqual(Array.from(bytes));
    }
  });

  it('writes timestamps in ISO 8601 with an explicit +00:00 offset', () => {
    expect(isoAt(Date.UTC(2026, 10, 21, 10, 0, 0, 5))).toBe('2026-11-21T10:00:00.005+00:00');
  });
});
