import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join as joinPath } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TesseraClient } from '../client/sdk.js';
import { recoverState } from '../engine/recover.js';
import { imageOf, stateFromImage, stateHash } from '../engine/state.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { fetchNonce, rawSigned, request } from './helpers/signed.js';
import { signText } from '../client/keys.js';
import {
  HEADER_AGENT_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from '../client/protocol.js';
import { join, refusal, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
let founder: TesseraClient;
let member: Member;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  url = society.url;
  founder = await founderClient(society);
  member = await join(society, 'prober');
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs.splice(0)).toEqual([]));

const encoders: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

describe('bodies are sent uncompressed', () => {
  const act = { act: 'world_look', challenge_id: null, puzzle_solution: null, payload: { radius: 1 } };

  /** A correctly signed act whose body goes out as the given bytes, under the given Content-Encoding. */
  async function sendEncoded(encoding: string, bytes: Buffer) {
    const nonce = await fetchNonce(url, member.id);
    const text = signingString({
      method: 'POST',
      path: '/api/v1/act',
      agent_id: member.id,
      nonce,
      body_sha256: await sha256Hex(canonicalBody(act)),
    });
    const headers = {
      'content-type': 'application/json',
      'content-encoding': encoding,
      [HEADER_AGENT_ID]: member.id,
      [HEADER_NONCE]: nonce,
      [HEADER_SIGNATURE]: await signText(member.key, text),
    };
    return {
      nonce,
      answer: await request(url, '/api/v1/act', { method: 'POST', headers, body: new Uint8Array(bytes) }),
    };
  }

  for (const encoding of ['gzip', 'deflate', 'br', 'GZIP', 'identity, gzip', 'x-unknown']) {
    it(`refuses a JSON body sent with Content-Encoding "${encoding}", corrupt or valid, with 415 and spends nothing`, async () => {
      let head = society.store.ledgerHead().seq;
      const encode = encoders[encoding.toLowerCase().replace('identity, ', '')] ?? ((bytes: Buffer) => bytes);
      for (const bytes of [
        Buffer.from('\x1f\x8b\x08 definitely not compressed data'),
        encode(Buffer.from(canonicalBody(act))),
      ]) {
        const { nonce, answer } = await sendEncoded(encoding, bytes);
        expect([answer.status, answer.body.error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
        expect(answer.body.message).toMatch(/uncompressed/);
        expect(society.store.ledgerHead().seq).toBe(head);
        // The nonce was not spent: the body was refused before the signature was looked at.
        const reused = await rawSigned(url, { path: '/api/v1/act', body: act, key: member.key, nonce });
        expect(reused.status).toBe(200);
        await society.engine.drain();
        head = society.store.ledgerHead().seq;
      }
    });
  }

  it('accepts Content-Encoding identity, which is no encoding at all', async () => {
    const sent = await rawSigned(url, {
      path: '/api/v1/act',
      body: act,
      key: member.key,
      headers: { 'content-encoding': 'identity' },
    });
    expect(sent.status).toBe(200);
  });

  it('refuses an encoded body on the raw-body routes too (observer recovery)', async () => {
    const sent = await request(url, '/treasury/observer/recover', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(Buffer.from('not gzip at all')),
    });
    expect([sent.status, sent.body.error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});

describe('ids that are property names are unknown ids', () => {
  const names = [
    '__proto__',
    'constructor',
    'prototype',
    'hasOwnProperty',
    'toString',
    'valueOf',
    '__defineGetter__',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    '__lookupGetter__',
  ];

  it('answers 404 UNKNOWN_MOTION for /api/v1/motions/<name>, its votes and its tally', async () => {
    for (const name of names) {
      for (const tail of ['', '/votes', '/tally']) {
        const answer = await request(url, `/api/v1/motions/${name}${tail}`);
        expect([name, tail, answer.status, answer.body.error]).toEqual([name, tail, 404, 'UNKNOWN_MOTION']);
      }
    }
  });

  it('answers 404 for the motion, module, agent and reputation pages of such names', async () => {
    for (const name of names) {
      for (const path of [
        `/motions/${name}`,
        `/modules/${name}`,
        `/agents/${name}`,
        `/api/v1/reputation/${name}`,
        `/motions/${name}.md`,
      ]) {
        const answer = await request(url, path);
        expect([path, answer.status]).toEqual([path, 404]);
      }
    }
  });

  it('refuses a Proof of Machine answer naming such a challenge id with 403 POM_FAILED', async () => {
    for (const name of names) {
      const answer = await rawSigned(url, {
        path: '/api/v1/act',
        body: {
          act: 'motion_propose',
          challenge_id: name,
          puzzle_solution: 'x',
          payload: { title: 'Probe', body: '', changes: [] },
        },
        key: member.key,
      });
      expect([name, answer.status, answer.body.error]).toEqual([name, 403, 'POM_FAILED']);
    }
  });

  /** A refused act leaves its Proof of Machine challenge outstanding; past its deadline it no longer counts. */
  const letChallengesExpire = () => society.advance(10 * 60_000);

  it('refuses a set_param change naming such a parameter with 409 INVALID_CHANGE', async () => {
    for (const name of names) {
      letChallengesExpire();
      const refused = await refusal(
        member.client.act('motion_propose', {
          title: `Set ${name}`,
          body: '',
          changes: [{ op: 'set_param', name, value: 1 }],
        }),
      );
      expect([name, refused.status, refused.code]).toEqual([name, 409, 'INVALID_CHANGE']);
    }
  });

  it('refuses to retire a module that was never enabled, whatever its name', async () => {
    for (const name of ['constructor', 'hasOwnProperty', 'toString']) {
      letChallengesExpire();
      const refused = await refusal(
        member.client.act('motion_propose', {
          title: `Retire ${name}`,
          body: '',
          changes: [{ op: 'retire_module', module_id: name }],
        }),
      );
      expect([name, refused.status, refused.code]).toEqual([name, 409, 'INVALID_CHANGE']);
    }
  });

  it('keeps a module named like a property as an ordinary module, across a replay', async () => {
    letChallengesExpire();
    const filed = await member.client.act<{ motion_id: string }>('motion_propose', {
      title: 'A constructor module',
      body: '',
      changes: [{ op: 'enable_module', module_id: 'constructor', description: 'builds things' }],
    });
    await founder.signed('POST', '/enactment/resolve', { motion_id: filed.result.motion_id, reason: 'probe' });
    const page = await request(url, '/modules/constructor');
    expect([page.status, page.body]).toEqual([200, expect.stringContaining('builds things')]);
    expect((await request(url, '/modules/toString')).status).toBe(404);
    letChallengesExpire();
    const proto = await refusal(
      member.client.act('motion_propose', {
        title: 'A proto module',
        body: '',
        changes: [{ op: 'enable_module', module_id: '__proto__', description: '' }],
      }),
    );
    expect([proto.status, proto.code]).toEqual([409, 'INVALID_CHANGE']);
    await society.engine.drain();
    const live = society.engine.state;
    expect(stateHash(recoverState(society.store, { use_snapshot: false }))).toBe(stateHash(live));
    const restored = stateFromImage(imageOf(live));
    expect(stateHash(restored)).toBe(stateHash(live));
    expect([
      Object.getPrototypeOf(restored.governance.modules),
      Object.getPrototypeOf(restored.payments.observers),
    ]).toEqual([null, null]);
    expect(Object.keys(restored.governance.modules)).toEqual(['constructor']);
  });
});

describe('the lookup rule', () => {
  it('reads the keyed records of the state only through ownValue, in engine, api and render', () => {
    const keyed =
      'motions|filings|modules|signals|ballots|challenges|sends|members|fulfilled|customers|observers|grants';
    // A bracket read of one of those records; an assignment target or a delete is a write, and writes go to prototype-free records.
    const bracket_read = new RegExp(`\\.(${keyed})\\[[^\\]]+\\](?!\\s*=[^=])`, 'g');
    const offenders: string[] = [];
    for (const folder of ['engine', 'api', 'render']) {
      for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) =>
        name.endsWith('.ts'),
      )) {
        const lines = readFileSync(joinPath(folder, file), 'utf8').split('\n');
        lines.forEach((line, index) => {
          for (const match of line.matchAll(bracket_read))
            if (!/\bdelete\s+\S*$/.test(line.slice(0, match.index)))
              offenders.push(`${folder}/${file}:${index + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });
});

/** Writes `head` and as much body as given on one connection, then hangs up, and resolves with the status line (or '' if none came). */
function rawExchange(base_url: string, head: string, options: { hang_up_after_ms?: number } = {}): Promise<string> {
  const { hostname, port } = new URL(base_url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.write(head);
    if (options.hang_up_after_ms !== undefined) setTimeout(() => socket.destroy(), options.hang_up_after_ms);
  });
}

describe('requests a browser would never send', () => {
  it('serves the RSS feed to a request without a Host header, or with one no URL can hold, linking to the public address', async () => {
    for (const head of [
      'GET /chronicle.rss HTTP/1.0\r\n\r\n',
      'GET /chronicle.rss HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n',
      'GET /chronicle.rss HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    ]) {
      expect([head, await rawExchange(url, head)]).toEqual([head, expect.stringMatching(/^HTTP\/1\.[01] 200 /)]);
    }
    const rss = (await request(url, '/chronicle.rss', { headers: { host: 'evil.example' } })).body as string;
    expect(rss).toContain('<link>http://society.test/</link>');
    expect(rss).not.toContain('evil.example');
  });

  it("treats a raw body the client stops sending as the client's failure, not a bug", async () => {
    const head =
      'POST /treasury/observer/recover HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"session_id":';
    await rawExchange(url, head, { hang_up_after_ms: 100 });
    // The server learns of the hang-up on its next turn; give it one before the afterEach looks for bugs.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
});
