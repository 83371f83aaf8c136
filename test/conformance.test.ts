import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';

/*
 * An agent written from docs/protocol.md alone: node:crypto and fetch, none of the
 * project's client code. If this passes, the contract as written is enough.
 */

/** JCS for JSON values without floats: sorted keys, JSON.stringify for everything else. */
function jcs(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${jcs((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

class IndependentAgent {
  readonly public_key: string;
  readonly agent_id: string;
  private readonly private_key: KeyObject;

  constructor(private readonly base: string) {
    const pair = generateKeyPairSync('ed25519');
    this.private_key = pair.privateKey;
    this.public_key = pair.publicKey.export({ format: 'jwk' }).x as string;
    this.agent_id = 'ag_' + sha256(Buffer.from(this.public_key, 'base64url')).slice(0, 16);
  }

  async send(path: string, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
    const { nonce } = (await (await fetch(`${this.base}/api/v1/nonce?agent=${this.agent_id}`)).json()) as {
      nonce: string;
    };
    const canonical = jcs(body);
    const text = ['society-sig-v1', 'POST', path, this.agent_id, nonce, sha256(canonical)].join('\n');
    const signature = sign(null, Buffer.from(text), this.private_key).toString('base64url');
    const response = await fetch(this.base + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-agent-id': this.agent_id,
        'x-nonce': nonce,
        'x-signature': signature,
      },
      body: canonical,
    });
    return { status: response.status, json: await response.json() };
  }
}

/** The recipe of section 4, re-implemented: chain, hashes and every proof. */
async function independentVerify(base: string): Promise<number> {
  const keys = new Map<string, { primary: string; backup: string | null }>();
  let prev = '0'.repeat(64);
  let seq = 0;
  for (let from = 1; ; ) {
    const page = (await (await fetch(`${base}/api/v1/ledger?from=${from}&limit=2`)).json()) as any;
    for (const entry of page.entries) {
      seq += 1;
      const { hash, ...rest } = entry;
      if (entry.seq !== seq || entry.prev_hash !== prev || sha256(jcs(rest)) !== hash) return seq;
      if (entry.event_type === 'agent_registered')
        keys.set(entry.actor, { primary: entry.data.pubkey, backup: entry.data.backup_pubkey });
      if (entry.proof) {
        const signer =
          entry.event_type === 'key_rotated' ? keys.get(entry.actor)?.backup : keys.get(entry.actor)?.primary;
        if (!signer) return seq;
        // The body as signed, or only its digest where the body must not be republished: exactly one of the two.
        if ('body' in entry.proof === 'body_sha256' in entry.proof) return seq;
        const body_sha256 = 'body' in entry.proof ? sha256(entry.proof.body) : entry.proof.body_sha256;
        const text = [
          'society-sig-v1',
          entry.proof.method,
          entry.proof.path,
          entry.actor,
          entry.proof.nonce,
          body_sha256,
        ].join('\n');
        const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: signer }, format: 'jwk' });
        if (!verify(null, Buffer.from(text), key, Buffer.from(entry.proof.signature, 'base64url'))) return seq;
      }
      if (entry.event_type === 'key_backup_registered') keys.get(entry.actor)!.backup = entry.data.backup_pubkey;
      prev = hash;
    }
    if (page.next_from === null) return page.head.hash === prev ? 0 : seq + 1;
    from = page.next_from;
  }
}

let society: TestSociety;
beforeAll(async () => {
  society = await startTestSociety();
});
afterAll(async () => society.destroy());

describe('a client written from docs/protocol.md alone', () => {
  it('registers, acts, and re-verifies the whole ledger', async () => {
    const agent = new IndependentAgent(society.url);
    const backup = new IndependentAgent(society.url);
    const registered = await agent.send('/api/v1/register', {
      pubkey: agent.public_key,
      handle: 'outsider',
      declared_runtime: 'hand-written',
      backup_pubkey: null,
    });
    expect(registered.status).toBe(200);
    expect(registered.json.agent_id).toBe(agent.agent_id);
    const acted = await agent.send('/api/v1/act', {
      act: 'key_backup_register',
      challenge_id: null,
      puzzle_solution: null,
      payload: { backup_pubkey: backup.public_key },
    });
    expect(acted.status).toBe(200);
    expect(acted.json.result.backup_pubkey).toBe(backup.public_key);
    expect(await independentVerify(society.url)).toBe(0);
  });
});
