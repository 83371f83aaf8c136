import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { nobleHasher } from '../client/tlog/hasher.js';
import { CompactRange } from '../client/tlog/merkle.js';
import { fromBase64, toBase64 } from '../client/tlog/base64.js';
import { formatCheckpoint, parseCheckpoint } from '../client/tlog/checkpoint.js';
import { cosignatureTimestamp, cosigner, SIGNATURE_TYPE_COSIGNATURE_V1 } from '../client/tlog/cosignature.js';
import {
  InvalidSignatureError,
  keyId,
  MalformedNoteError,
  MAX_NOTE_SIGNATURES,
  openNote,
  parseNote,
  parseSignatureLine,
  signNote,
  UnverifiedNoteError,
} from '../client/tlog/note.js';
import {
  formatSignerKey,
  formatVerifierKey,
  generateSignerKey,
  noteSigner,
  noteVerifier,
  parseSignerKey,
  parseVerifierKey,
  SIGNATURE_TYPE_ED25519,
} from '../client/tlog/note_keys.js';
import { formatAddCheckpoint, MAX_PROOF_LINES, parseAddCheckpoint } from '../client/tlog/witness_protocol.js';

// Published vectors, each file and commit named in the fixture's "source".
const vectors = JSON.parse(readFileSync(new URL('./fixtures/note_vectors.json', import.meta.url), 'utf8')) as {
  golang_mod: Record<'peter_vkey' | 'peter_skey' | 'enoch_vkey' | 'text' | 'peter_sig' | 'enoch_sig', string> & {
    bad_vkeys: string[];
  };
  c2sp: Record<
    'signed_note_vkey' | 'signed_note' | 'checkpoint_text' | 'cosignature_line' | 'add_checkpoint_body',
    string
  > & { cosignature_time: number };
  formats: Record<
    'cosignature_vkey' | 'ed25519_vkey_with_plus' | 'cosignature_base64' | 'plain_signature_base64',
    string
  > & { cosignature_time: number };
};
const go = vectors.golang_mod;
const peter = () => noteVerifier(parseVerifierKey(go.peter_vkey));
const enoch = () => noteVerifier(parseVerifierKey(go.enoch_vkey));

describe('verifier keys (vkeys)', () => {
  it('parses the published vkeys and formats them back byte for byte', () => {
    for (const vkey of [go.peter_vkey, go.enoch_vkey, vectors.c2sp.signed_note_vkey]) {
      const key = parseVerifierKey(vkey);
      expect(key.type).toBe(SIGNATURE_TYPE_ED25519);
      expect(formatVerifierKey(key)).toBe(vkey);
    }
    expect(parseVerifierKey(go.peter_vkey).key_id).toBe(0xc74f20a3);
  });

  it('derives the key id as SHA-256(name || "\\n" || type || key)[:4], checked with node:crypto', () => {
    const key = parseVerifierKey(go.enoch_vkey);
    const digest = createHash('sha256')
      .update(Buffer.concat([Buffer.from('EnochRoot\n'), Buffer.from([0x01]), key.public_key]))
      .digest();
    expect(digest.readUInt32BE(0)).toBe(key.key_id);
  });

  it('takes a key whose base64 holds a "+" (transparency-dev/formats vector)', () => {
    expect(formatVerifierKey(parseVerifierKey(vectors.formats.ed25519_vkey_with_plus))).toBe(
      vectors.formats.ed25519_vkey_with_plus,
    );
  });

  it('refuses every proper substring and every one-byte change of a vkey (golang.org/x/mod TestNewVerifier)', () => {
    const vkey = go.peter_vkey;
    const refused = (text: string) => expect(() => parseVerifierKey(text), text).toThrow();
    for (let i = 0; i <= vkey.length; i++)
      for (let j = i + 1; j <= vkey.length; j++) if (i !== 0 || j !== vkey.length) refused(vkey.slice(i, j));
    for (let i = 0; i < vkey.length; i++)
      refused(vkey.slice(0, i) + String.fromCharCode(vkey.charCodeAt(i) + 1) + vkey.slice(i + 1));
    for (const bad of go.bad_vkeys) refused(bad);
  });

  it('refuses names with a Unicode space, and key ids in uppercase hex', () => {
    const key_base64 = go.peter_vkey.split('+')[2];
    for (const name of ['Peter Neumann', 'Peter\u00a0Neumann', 'Peter\u3000Neumann', ''])
      expect(() => parseVerifierKey(`${name}+c74f20a3+${key_base64}`), name).toThrow(/invalid key name/);
    expect(() => parseVerifierKey(go.peter_vkey.replace('c74f20a3', 'C74F20A3'))).toThrow(/lowercase hex/);
  });
});

describe('signer keys', () => {
  it("parses the published signer key: its public key is the vkey's", async () => {
    const signer = await parseSignerKey(go.peter_skey);
    expect(formatVerifierKey(signer)).toBe(go.peter_vkey);
    expect(formatSignerKey(signer)).toBe(go.peter_skey);
  });

  it('refuses every proper substring of a signer key (golang.org/x/mod TestNewSigner)', async () => {
    const skey = go.peter_skey;
    for (let i = 0; i <= skey.length; i++)
      for (let j = i + 1; j <= skey.length; j++) {
        if (i === 0 && j === skey.length) continue;
        await expect(parseSignerKey(skey.slice(i, j)), skey.slice(i, j)).rejects.toThrow();
      }
  });

  it('generates keys of both types that round-trip and sign what their vkey verifies', async () => {
    for (const type of [SIGNATURE_TYPE_ED25519, SIGNATURE_TYPE_COSIGNATURE_V1] as const) {
      const key = await generateSignerKey('example.test/round-trip', type);
      expect(await parseSignerKey(formatSignerKey(key))).toEqual(key);
      await expect(parseSignerKey(formatSignerKey({ ...key, key_id: key.key_id ^ 1 }))).rejects.toThrow(/key id/);
      const note = await signNote('test\n123\nf+7CoKgXKE/tNys9TTXcr/ad6U/K3xvznmzew9y6SP0=\n', [
        noteSigner(key, () => 1),
      ]);
      const opened = await openNote(note, [noteVerifier(parseVerifierKey(formatVerifierKey(key)))]);
      expect(opened.verified).toHaveLength(1);
    }
  });
});

describe('signed notes', () => {
  const text = go.text;

  it('signs the published text into the published note, byte for byte (golang.org/x/mod TestSign)', async () => {
    const signer = noteSigner(await parseSignerKey(go.peter_skey));
    expect(await signNote(text, [signer])).toBe(`${text}\n${go.peter_sig}`);
  });

  it('verifies the C2SP signed-note example', async () => {
    const opened = await openNote(vectors.c2sp.signed_note, [
      noteVerifier(parseVerifierKey(vectors.c2sp.signed_note_vkey)),
    ]);
    expect(opened.text).toBe('This is an example message.\n');
    expect(opened.verified.map((s) => s.name)).toEqual(['example.com/foo']);
  });

  it('keeps signatures of unknown keys aside and verifies the known ones (golang.org/x/mod TestOpen)', async () => {
    const note = `${text}\n${go.peter_sig}${go.enoch_sig}`;
    const one = await openNote(note, [peter()]);
    expect(one.text).toBe(text);
    expect(one.verified.map((s) => [s.name, s.key_id])).toEqual([['PeterNeumann', 0xc74f20a3]]);
    expect(one.unverified.map((s) => [s.name, s.key_id])).toEqual([['EnochRoot', 0xaf0cfe78]]);
    const both = await openNote(note, [peter(), enoch()]);
    expect(both.verified.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(both.unverified).toEqual([]);
    await expect(openNote(note, [])).rejects.toBeInstanceOf(UnverifiedNoteError);
  });

  it('drops repeated signatures, refuses a known key whose signature fails', async () => {
    const tampered = go.enoch_sig.slice(0, 60) + 'ABCD' + go.enoch_sig.slice(60);
    const note = `${text}\n${go.peter_sig}${go.peter_sig}${go.enoch_sig}${go.enoch_sig}${tampered}`;
    const opened = await openNote(note, [peter()]);
    expect(opened.verified).toHaveLength(1);
    expect(opened.unverified.map((s) => s.base64.slice(44, 52))).toEqual([
      go.enoch_sig.slice(56, 64),
      tampered.slice(56, 64),
    ]);
    const bad_peter = go.peter_sig.slice(0, 60) + 'ABCD' + go.peter_sig.slice(60);
    await expect(openNote(`${text}\n${bad_peter}`, [peter()])).rejects.toThrow(InvalidSignatureError);
    await expect(openNote(`${text}\n${bad_peter}`, [peter()])).rejects.toThrow(
      'invalid signature for key PeterNeumann+c74f20a3',
    );
  });

  it(`refuses more than ${MAX_NOTE_SIGNATURES} signature lines, known or not`, async () => {
    const many = `${text}\n${go.peter_sig.repeat(MAX_NOTE_SIGNATURES + 1)}`;
    await expect(openNote(many, [peter()])).rejects.toBeInstanceOf(MalformedNoteError);
    await expect(openNote(many, [])).rejects.toBeInstanceOf(MalformedNoteError);
    expect((await openNote(`${text}\n${go.peter_sig.repeat(MAX_NOTE_SIGNATURES)}`, [peter()])).verified).toHaveLength(
      1,
    );
  });

  it("refuses malformed notes (golang.org/x/mod TestOpen, and the spec's rules)", async () => {
    const bad = [
      text,
      `${text}\n`,
      `${text}\n${go.peter_sig.slice(0, -1)}`,
      `\x01${text}\n${go.peter_sig}`,
      `${text}\r\n${go.peter_sig}`,
      `${text}\n\u2014 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      `${text}\n${go.peter_sig}Unexpected line.\n`,
      `${text}\n\u2014 a+b ${go.peter_sig.split(' ')[2]}`,
      `${text}\n\u2014 PeterNeumann x08g\n`,
      `${text}\n\u2014 PeterNeumann ${go.peter_sig.split(' ')[2]!.replace('=', '')}`,
      `${text}\n\u2014 PeterNeumann AAAAAA==\n`,
      `${text}\n- PeterNeumann ${go.peter_sig.split(' ')[2]}`,
      `${text}\ud800\n\n${go.peter_sig}`,
    ];
    for (const note of bad)
      await expect(openNote(note, [peter()]), JSON.stringify(note)).rejects.toBeInstanceOf(MalformedNoteError);
    // Bytes: invalid UTF-8 is refused, and a byte-order mark is text, not dropped.
    const bytes = new TextEncoder().encode(`${text}\n${go.peter_sig}`);
    await expect(openNote(Uint8Array.from([0xff, ...bytes]), [peter()])).rejects.toBeInstanceOf(MalformedNoteError);
    await expect(openNote(Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]), [peter()])).rejects.toBeInstanceOf(
      InvalidSignatureError,
    );
    expect((await openNote(bytes, [peter()])).verified).toHaveLength(1);
  });

  it('splits the text from the signatures at the last blank line', async () => {
    const signer = noteSigner(await parseSignerKey(go.peter_skey));
    const note = await signNote('first\n\nsecond\n', [signer]);
    expect(parseNote(note).text).toBe('first\n\nsecond\n');
    await expect(signNote('no newline', [signer])).rejects.toBeInstanceOf(MalformedNoteError);
    await expect(signNote('tab\there\n', [signer])).rejects.toBeInstanceOf(MalformedNoteError);
  });
});

describe('checkpoints', () => {
  const text = vectors.c2sp.checkpoint_text;

  it('parses the C2SP example and formats it back', () => {
    const checkpoint = parseCheckpoint(text);
    expect(checkpoint.origin).toBe('example.com/behind-the-sofa');
    expect(checkpoint.size).toBe(20852163);
    expect(toBase64(checkpoint.root_hash)).toBe('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=');
    expect(checkpoint.extensions).toEqual([]);
    expect(formatCheckpoint(checkpoint)).toBe(text);
  });

  it('keeps extension lines, and the empty tree is size 0', () => {
    const extended = parseCheckpoint(`${text}ext one\next two\n`);
    expect(extended.extensions).toEqual(['ext one', 'ext two']);
    expect(formatCheckpoint(extended)).toBe(`${text}ext one\next two\n`);
    expect(parseCheckpoint('log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n').size).toBe(0);
  });

  it('refuses what the spec does not allow', () => {
    const root = 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=';
    const bad = [
      `log\n20852163\n${root}`,
      `\n20852163\n${root}\n`,
      `log\n020852163\n${root}\n`,
      `log\n-1\n${root}\n`,
      `log\n+1\n${root}\n`,
      `log\n1.0\n${root}\n`,
      `log\n 1\n${root}\n`,
      `log\n9007199254740992\n${root}\n`,
      `log\n1\n${root.slice(0, -8)}AAA=\n`,
      `log\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=\n`,
      `log\n1\n${root.replace(/=$/, '')}\n`,
      `log\n1\n${root}\n\n`,
      `log\n1\n`,
    ];
    for (const checkpoint of bad)
      expect(() => parseCheckpoint(checkpoint), JSON.stringify(checkpoint)).toThrow(/malformed checkpoint/);
  });
});

describe('cosignature/v1', () => {
  const checkpoint_text = vectors.c2sp.checkpoint_text;

  it('reads the timestamps of the published cosignatures', () => {
    expect(cosignatureTimestamp(parseSignatureLine(vectors.c2sp.cosignature_line))).toBe(vectors.c2sp.cosignature_time);
    const formats_line = `\u2014 x ${vectors.formats.cosignature_base64}`;
    expect(cosignatureTimestamp(parseSignatureLine(formats_line))).toBe(vectors.formats.cosignature_time);
    expect(
      cosignatureTimestamp(parseSignatureLine(`\u2014 x ${vectors.formats.plain_signature_base64}`)),
    ).toBeUndefined();
  });

  it('derives a cosignature key id with type 0x04 (transparency-dev/formats vkey)', () => {
    const key = parseVerifierKey(vectors.formats.cosignature_vkey);
    expect(key.type).toBe(SIGNATURE_TYPE_COSIGNATURE_V1);
    expect(key.key_id).toBe(0xda77ade7);
    const digest = createHash('sha256')
      .update(Buffer.concat([Buffer.from(`${key.name}\n`), Buffer.from([0x04]), key.public_key]))
      .digest();
    expect(digest.readUInt32BE(0)).toBe(key.key_id);
  });

  it('lays out key id || 8-byte big-endian time || Ed25519 over "cosignature/v1\\ntime T\\n" + checkpoint (checked with node:crypto)', async () => {
    const real = await generateSignerKey('w.example/w1', SIGNATURE_TYPE_COSIGNATURE_V1);
    const time = 1679315147;
    const note = await signNote(checkpoint_text, [cosigner(real.name, real.seed, real.public_key, () => time)]);
    const line = note.slice(checkpoint_text.length + 1, -1);
    const bytes = Buffer.from(line.split(' ')[2]!, 'base64');
    expect(bytes.length).toBe(4 + 8 + 64);
    const id = createHash('sha256')
      .update(Buffer.concat([Buffer.from('w.example/w1\n'), Buffer.from([0x04]), real.public_key]))
      .digest()
      .subarray(0, 4);
    expect(bytes.subarray(0, 4)).toEqual(id);
    expect(bytes.readBigUInt64BE(4)).toBe(BigInt(time));
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), real.public_key]);
    const message = Buffer.from(`cosignature/v1\ntime ${time}\n${checkpoint_text}`);
    expect(
      nodeVerify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), bytes.subarray(12)),
    ).toBe(true);
    const verifier = noteVerifier(parseVerifierKey(formatVerifierKey(real)));
    expect((await openNote(note, [verifier])).verified).toHaveLength(1);
  });

  it('does not verify with another time, another text, or the same key read as a plain Ed25519 key', async () => {
    const key = await generateSignerKey('w.example/w2', SIGNATURE_TYPE_COSIGNATURE_V1);
    const verifier = noteVerifier(key);
    const text = new TextEncoder().encode(`${checkpoint_text}ext\n`);
    const signature = await cosigner(key.name, key.seed, key.public_key, () => 1700000000).sign(text);
    expect(await verifier.verify(text, signature)).toBe(true);
    const shifted = signature.slice();
    shifted[11]! ^= 1;
    expect(await verifier.verify(text, shifted)).toBe(false);
    expect(await verifier.verify(new TextEncoder().encode(checkpoint_text), signature)).toBe(false);
    const plain = noteVerifier({ ...key, type: SIGNATURE_TYPE_ED25519, key_id: keyId(key.name, 1, key.public_key) });
    expect(plain.key_id).not.toBe(verifier.key_id);
    expect(await plain.verify(text, signature)).toBe(false);
    await expect(cosigner(key.name, key.seed, key.public_key, () => 0).sign(text)).rejects.toThrow(/positive/);
  });
});

describe('the worked example of docs/transparency.md', () => {
  it('is what the code makes, byte for byte, and verifies', async () => {
    const key = async (name: string, type: 1 | 4, fill: number) => {
      const seed = new Uint8Array(32).fill(fill);
      const public_key = await ed.getPublicKeyAsync(seed);
      return { name, type, seed, public_key, key_id: keyId(name, type, public_key) };
    };
    const log = await key('tessera.example/log', 1, 1);
    const witness = await key('witness.example/w1', 4, 2);
    expect(formatVerifierKey(log)).toBe('tessera.example/log+75647dd0+AYqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29c');
    expect(formatVerifierKey(witness)).toBe('witness.example/w1+df1c0a35+BIE5dw6ofRdfVqNUZsNMfszLjYqRtO43ol32D1uPybOU');
    const range = new CompactRange(nobleHasher);
    for (const entry of ['entry 0', 'entry 1', 'entry 2'])
      range.append(nobleHasher.leaf(new TextEncoder().encode(entry)));
    const text = formatCheckpoint({ origin: log.name, size: 3, root_hash: range.root(), extensions: [] });
    const note = await signNote(text, [noteSigner(log), noteSigner(witness, () => 1763900000)]);
    const docs = readFileSync(new URL('../docs/transparency.md', import.meta.url), 'utf8');
    const shown = note
      .split('\n')
      .map((line) => (line ? `    ${line}` : ''))
      .join('\n');
    expect(docs).toContain(shown.trimEnd());
    const opened = await openNote(note, [noteVerifier(log), noteVerifier(witness)]);
    expect(opened.verified).toHaveLength(2);
  });
});

describe('add-checkpoint request bodies', () => {
  it('parses the C2SP tlog-witness example and formats it back', () => {
    const request = parseAddCheckpoint(vectors.c2sp.add_checkpoint_body);
    expect(request.old_size).toBe(20852014);
    expect(request.proof.map(toBase64)).toEqual([
      'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=',
      'jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=',
      '5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=',
      '/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=',
    ]);
    expect(parseNote(request.checkpoint_note).signatures).toHaveLength(2);
    expect(formatAddCheckpoint(request)).toBe(vectors.c2sp.add_checkpoint_body);
  });

  it(`refuses a bad old line, a bad hash, a missing blank line and more than ${MAX_PROOF_LINES} proof lines`, () => {
    const hash = `${toBase64(new Uint8Array(32))}\n`;
    const note = vectors.c2sp.checkpoint_text;
    expect(parseAddCheckpoint(`old 0\n${hash.repeat(MAX_PROOF_LINES)}\n${note}`).proof).toHaveLength(MAX_PROOF_LINES);
    for (const body of [
      `old 01\n\n${note}`,
      `old -1\n\n${note}`,
      `old  1\n\n${note}`,
      `Old 1\n\n${note}`,
      `old 1`,
      `old 1\n${hash}`,
      `old 1\nAAAA\n\n${note}`,
      `old 1\n${hash.slice(0, -2)}\n\n${note}`,
      `old 0\n${hash.repeat(MAX_PROOF_LINES + 1)}\n${note}`,
    ])
      expect(() => parseAddCheckpoint(body), JSON.stringify(body)).toThrow();
  });
});

describe('client/tlog', () => {
  it('uses no Node-only API: verifiers run in any JavaScript runtime', () => {
    const folder = new URL('../client/tlog/', import.meta.url);
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
      const code = readFileSync(new URL(file, folder), 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
      expect(code, file).not.toMatch(/from 'node:|require\(|\bBuffer\b|\bprocess\./);
    }
  });
});

describe('standard base64', () => {
  it('takes only the canonical spelling', () => {
    expect(fromBase64('AQID')).toEqual(new Uint8Array([1, 2, 3]));
    for (const bad of ['AQI', 'AQJ=', 'AQ-_', 'AQ==AQ==', ' AQID', 'AQ=='.replace('==', '=')])
      expect(() => fromBase64(bad), bad).toThrow();
  });
});
