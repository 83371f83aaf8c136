import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, signText, verifyText } from '../client/keys.js';
import { eventClass, type WireEntry } from '../client/ledger_check.js';
import { canonicalBody, sha256Hex, signingString } from '../client/protocol.js';
import { verifyLedger } from '../client/verify.js';
import { firstProblem, rehashFrom, withInvented } from './helpers/forged_ledger.js';
import { rawSigned, request } from './helpers/signed.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { tileIndex } from '../engine/world/geometry.js';
import { WORLD_TEST_GENESIS, biomeAt, findTile, join, standOn, worldOf, type Member } from './helpers/world.js';

const SECRET = 'Axiom four shall read: nothing is recorded';

async function ledger(url: string): Promise<WireEntry[]> {
  return (await request(url, '/api/v1/ledger?from=1&limit=1000')).body.entries;
}

/** The signing string an entry's proof claims, rebuilt as any verifier would. */
function claimedSigningString(entry: WireEntry & { proof: { body_sha256: string } }): string {
  const { method, path, nonce, body_sha256 } = entry.proof;
  return signingString({ method, path, agent_id: entry.actor, nonce, body_sha256 });
}

describe('a Bedrock filing refused at filing, on the ledger', () => {
  let society: TestSociety;
  let filer: Member;
  let bystander: Member;
  let signed_body: string;
  let entries: WireEntry[];
  let refusal_index: number;

  beforeAll(async () => {
    society = await startTestSociety();
    filer = await join(society, 'filer');
    bystander = await join(society, 'bystander');
    const body = {
      act: 'motion_propose',
      ...(await filer.client.solvePom('motion_propose')),
      payload: { title: 'Quiet ledger', body: '', changes: [{ op: 'amend_axiom', article_id: 'A4', text: SECRET }] },
    };
    signed_body = canonicalBody(body);
    const answer = await rawSigned(society.url, { path: '/api/v1/act', body, key: filer.key });
    expect([answer.status, answer.body.error]).toEqual([403, 'BEDROCK_PROTECTED']);
    entries = await ledger(society.url);
    refusal_index = entries.findIndex((entry) => entry.event_type === 'p0_refusal');
  });
  afterAll(async () => society.destroy());

  it("carries the member's proof in digest form: body_sha256 is the hash of the body signed, and is data.payload_sha256", async () => {
    const entry = entries[refusal_index] as WireEntry & { proof: any };
    expect(entry).toMatchObject({ actor: filer.id, data: { agent_id: filer.id, where: 'filing', op: 'amend_axiom' } });
    expect(Object.keys(entry.proof)).toEqual(['body_sha256', 'method', 'nonce', 'path', 'signature']);
    const body_sha256 = await sha256Hex(signed_body);
    expect(entry.proof).toMatchObject({ method: 'POST', path: '/api/v1/act', body_sha256 });
    expect(entry.data.payload_sha256).toBe(body_sha256);
    expect((await request(society.url, '/prohibitions/p0')).body.refusals.at(-1).payload_sha256).toBe(body_sha256);
    expect(await verifyText(filer.key.public_key, claimedSigningString(entry), entry.proof.signature)).toBe(true);
    expect(await verifyText(bystander.key.public_key, claimedSigningString(entry), entry.proof.signature)).toBe(false);
    expect(JSON.stringify(entries)).not.toContain(SECRET);
  });

  it('shows the digest and never the refused text on any page that shows the entry or the P0 list', async () => {
    const entry = entries[refusal_index]! as WireEntry & { proof: any };
    const entry_page = await request(society.url, `/ledger/${entry.seq}`);
    expect([entry_page.status, entry_page.body]).toEqual([200, expect.stringContaining(entry.proof.body_sha256)]);
    for (const path of ['/ledger', '/ledger.md', '/prohibitions', '/prohibitions/p0']) {
      const shown = await request(society.url, path);
      expect(shown.status, path).toBe(200);
      expect(JSON.stringify(shown.body), path).not.toContain(SECRET);
    }
  });

  it('passes tessera-agent verify, served page by page', async () => {
    expect(await verifyLedger(society.url, { page_size: 2 })).toMatchObject({
      ok: true,
      entries_checked: entries.length,
    });
  });

  it('fails verification at that seq when the operator strips the proof and re-hashes the chain', async () => {
    const forged = structuredClone(entries);
    delete forged[refusal_index]!.proof;
    expect(await firstProblem(await rehashFrom(forged, refusal_index))).toEqual({
      seq: refusal_index + 1,
      reason: expect.stringContaining('carries no proof'),
    });
  });

  it('fails verification at that seq when payload_sha256 is not the hash the proof signed', async () => {
    const forged = structuredClone(entries);
    forged[refusal_index]!.data.payload_sha256 = await sha256Hex('some other filing');
    expect(await firstProblem(await rehashFrom(forged, refusal_index))).toEqual({
      seq: refusal_index + 1,
      reason: expect.stringContaining('payload_sha256'),
    });
    // Moving the proof's digest along with it breaks the signature instead.
    (forged[refusal_index]!.proof as any).body_sha256 = forged[refusal_index]!.data.payload_sha256;
    expect(await firstProblem(await rehashFrom(forged, refusal_index))).toEqual({
      seq: refusal_index + 1,
      reason: expect.stringContaining('does not verify'),
    });
  });

  describe('an invented refusal for a member who never filed it', () => {
    const invented = async (proof?: Record<string, string>) => {
      const payload_sha256 = proof?.body_sha256 ?? (await sha256Hex('{"act":"motion_propose"}'));
      return withInvented(entries, {
        at: entries.at(-1)!.at,
        event_type: 'p0_refusal',
        actor: bystander.id,
        data: {
          agent_id: bystander.id,
          op: 'amend_axiom',
          payload_sha256,
          reasoning: 'A4 is Bedrock',
          where: 'filing',
        },
        ...(proof ? { proof: proof as any } : {}),
      });
    };
    const proofSignedBy = async (key: Awaited<ReturnType<typeof generateKey>>, agent_id: string) => {
      const fields = {
        method: 'POST',
        path: '/api/v1/act',
        nonce: randomBytes(18).toString('base64url'),
        body_sha256: await sha256Hex('{"act":"motion_propose"}'),
      };
      return { ...fields, signature: await signText(key, signingString({ ...fields, agent_id })) };
    };

    it('fails with no proof', async () => {
      const forged = await invented();
      expect(await firstProblem(forged)).toEqual({
        seq: forged.length,
        reason: expect.stringContaining('p0_refusal carries no proof'),
      });
    });

    it("fails with a proof signed by any key but the member's", async () => {
      const forged = await invented(await proofSignedBy(await generateKey(), bystander.id));
      expect(await firstProblem(forged)).toEqual({ seq: forged.length, reason: 'proof signature does not verify' });
    });

    it('fails with a proof that carries both the body and its digest, or neither', async () => {
      const proof = await proofSignedBy(bystander.key, bystander.id);
      expect(await firstProblem(await invented(proof))).toBeUndefined(); // the control: the member's own signature
      const both = await invented({ ...proof, body: '{"act":"motion_propose"}' });
      expect(await firstProblem(both)).toEqual({
        seq: both.length,
        reason: expect.stringContaining('exactly one of body and body_sha256'),
      });
      const { body_sha256: _dropped, ...bare } = proof;
      const neither = await invented(bare);
      expect(await firstProblem(neither)).toEqual({
        seq: neither.length,
        reason: expect.stringContaining('exactly one of body and body_sha256'),
      });
      const upper = await invented({ ...proof, body_sha256: proof.body_sha256.toUpperCase() });
      expect(await firstProblem(upper)).toEqual({ seq: upper.length, reason: expect.stringContaining('body_sha256') });
    });
  });
});

describe('a Bedrock refusal at the enactment boundary, on the ledger', () => {
  it("carries the Founder's signed apply request in digest form, and verifies", async () => {
    // A society of its own: the state is arranged by hand, which no log could replay.
    const society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    try {
      const founder = await founderClient(society);
      const member = await join(society, 'filer');
      const filed = await member.client.act<{ motion_id: string }>('motion_propose', {
        title: 'Innocent at filing',
        body: '',
        changes: [],
      });
      const motion_id = filed.result.motion_id;
      const arranged = society.engine.state.governance.motions[motion_id]!;
      arranged.changes = [{ op: 'change_founder', founder_pubkey: 'x'.repeat(43) }];
      arranged.status = 'passed';
      const answer = await rawSigned(society.url, { path: '/enactment/apply', body: { motion_id }, key: founder.key! });
      expect([answer.status, answer.body.error]).toEqual([403, 'BEDROCK_PROTECTED']);
      const entry = (await ledger(society.url)).at(-1)! as WireEntry & { proof: any };
      const body_sha256 = await sha256Hex(canonicalBody({ motion_id }));
      expect(entry).toMatchObject({
        event_type: 'p0_refusal',
        actor: founder.key!.agent_id,
        data: { where: 'apply', payload_sha256: body_sha256 },
        proof: { path: '/enactment/apply', body_sha256 },
      });
      expect(entry.proof.body).toBeUndefined();
      expect(await verifyText(founder.key!.public_key, claimedSigningString(entry), entry.proof.signature)).toBe(true);
      expect(await verifyLedger(society.url)).toMatchObject({ ok: true });
    } finally {
      await society.destroy();
    }
  });
});

describe("every entry a member's request opens with", () => {
  let society: TestSociety;
  let entries: WireEntry[];

  beforeAll(async () => {
    society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
    const [author, voter] = [await join(society, 'author'), await join(society, 'voter')];
    // World acts, among them a gift, whose second entry has the recipient as actor and no proof.
    const world = worldOf(society);
    const spot = findTile(
      world,
      (x, y, here) =>
        here === 'plains' &&
        biomeAt(world, x + 1, y) === 'plains' &&
        world.surface[tileIndex(x, y)] === world.surface[tileIndex(x + 1, y)],
    );
    standOn(society, author, spot.x, spot.y);
    standOn(society, voter, spot.x + 1, spot.y);
    await author.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    await author.client.act('world_give', { to: voter.id, resource: 'dirt', amount: 1 });
    await voter.client.act('world_move', { path: ['e'] });
    await voter.client.act('aether_send', { body: 'Hello, society.', scope: 'auto', route: 'global' });
    const motion_id = (
      await author.client.act<{ motion_id: string }>('motion_propose', { title: 'More forests', body: '', changes: [] })
    ).result.motion_id;
    await voter.client.act('motion_cosponsor', { motion_id });
    await author.client.act('motion_open', { motion_id });
    await voter.client.act('vote_cast', { motion_id, choice: 'aye' });
    await author.client.act('bulletin_post', { title: 'Hello', body: 'We plant on Fridays.' });
    await (await founderClient(society)).signed('POST', '/enactment/dispatch', {});
    entries = await ledger(society.url);
  });
  afterAll(async () => society.destroy());

  it('verifies as served, the entries that follow within one request carrying no proof of their own', async () => {
    expect(await verifyLedger(society.url)).toMatchObject({ ok: true, entries_checked: entries.length });
    const types = new Set(entries.filter((entry) => entry.proof).map((entry) => entry.event_type));
    for (const type of [
      'pom_challenge_issued',
      'motion_filed',
      'motion_cosponsored',
      'motion_opened',
      'vote_cast',
      'bulletin_posted',
      'dispatch_published',
      'terrain_dug',
      'resource_sent',
      'agent_moved',
      'aether_sent',
    ]) {
      expect(types).toContain(type);
    }
    expect(entries.find((entry) => entry.event_type === 'resource_received')).toMatchObject({
      actor: expect.stringMatching(/^ag_/),
    });
    expect(entries.find((entry) => entry.event_type === 'resource_received')!.proof).toBeUndefined();
  });

  it('fails verification at that seq once its proof is stripped and the chain re-hashed', async () => {
    let cases = 0;
    for (let index = 0; index < entries.length; index++) {
      if (!entries[index]!.proof) continue;
      const forged = structuredClone(entries);
      delete forged[index]!.proof;
      expect(
        await firstProblem(await rehashFrom(forged, index)),
        `${entries[index]!.event_type} at seq ${index + 1}`,
      ).toEqual({ seq: index + 1, reason: expect.stringContaining('carries no proof') });
      cases++;
    }
    expect(cases).toBeGreaterThanOrEqual(10);
  });

  it('fails verification where a proofless entry for an agent belongs to no signed request that names it', async () => {
    const received = entries.findIndex((entry) => entry.event_type === 'resource_received');
    const redirected = structuredClone(entries);
    const stranger = entries.find(
      (entry) => entry.event_type === 'agent_registered' && entry.proof && entry.actor !== redirected[received]!.actor,
    )!.actor;
    Object.assign(redirected[received]!, {
      actor: stranger,
      data: { ...redirected[received]!.data, agent_id: stranger },
    });
    expect(await firstProblem(await rehashFrom(redirected, received))).toEqual({
      seq: received + 1,
      reason: expect.stringContaining('does not name'),
    });

    const awarded = entries.find((entry) => entry.event_type === 'standing_awarded')!;
    const invented = await withInvented(entries, {
      at: '2031-01-01T00:00:00.000+00:00',
      event_type: 'standing_awarded',
      actor: awarded.actor,
      data: awarded.data,
    });
    expect(await firstProblem(invented)).toEqual({
      seq: invented.length,
      reason: expect.stringContaining('follows no signed request'),
    });
  });

  it('fails verification where a gain is invented behind a request that cannot produce it: a relic behind a bulletin post', async () => {
    const posted = entries.findIndex((entry) => entry.event_type === 'bulletin_posted');
    const { actor, at } = entries[posted]!;
    const upto_post = entries.slice(0, posted + 1);
    const relic = await withInvented(upto_post, {
      event_type: 'relic_found',
      actor,
      at,
      data: { agent_id: actor, site: { x: 1, y: 1, z: 1 } },
    });
    expect(await firstProblem(relic)).toEqual({
      seq: posted + 2,
      reason: 'relic_found cannot come of a bulletin_posted request',
    });
    const standing = await withInvented(upto_post, {
      event_type: 'standing_awarded',
      actor,
      at,
      data: { agent_id: actor, points: 50, reason: 'relic_found', standing: 50 },
    });
    expect(await firstProblem(standing)).toEqual({
      seq: posted + 2,
      reason: 'standing_awarded:relic_found cannot come of a bulletin_posted request',
    });
  });

  /** A copy of the served ledger with one entry changed by `edit`, re-hashed from there as an operator would. */
  const forgedAt = async (event_type: string, edit: (entry: WireEntry & { proof: any }) => void | Promise<void>) => {
    const forged = structuredClone(entries);
    const index = forged.findIndex((entry) => entry.event_type === event_type && entry.proof);
    await edit(forged[index]! as WireEntry & { proof: any });
    return { index, problem: await firstProblem(await rehashFrom(forged, index)) };
  };

  it('fails verification where the operator changes what the member asked for: a vote flipped, a gift redirected', async () => {
    const flipped = await forgedAt('vote_cast', (entry) => void (entry.data.choice = 'nay'));
    expect(flipped.problem).toEqual({ seq: flipped.index + 1, reason: 'data.choice differs from the signed body' });
    const enlarged = await forgedAt('resource_sent', (entry) => void (entry.data.amount = 50));
    expect(enlarged.problem).toEqual({ seq: enlarged.index + 1, reason: 'data.amount differs from the signed body' });
  });

  it('fails verification where the signed body is swapped for its digest, which only a Bedrock refusal may carry', async () => {
    const hidden = await forgedAt('vote_cast', async (entry) => {
      const { body, ...rest } = entry.proof;
      entry.proof = { ...rest, body_sha256: await sha256Hex(body) };
      entry.data.choice = 'nay';
    });
    expect(hidden.problem).toEqual({
      seq: hidden.index + 1,
      reason: 'vote_cast must carry its signed body, not only its digest',
    });
  });

  it("fails verification where a member's proof is moved onto an entry of another act (a cosponsorship made a vote)", async () => {
    const moved = await forgedAt('motion_cosponsored', (entry) => {
      entry.event_type = 'vote_cast';
      entry.data = { ...entry.data, choice: 'aye', revision: 1 };
    });
    expect(moved.problem).toEqual({
      seq: moved.index + 1,
      reason: 'vote_cast is not what the signed request asked for (motion_cosponsor)',
    });
  });

  it("fails verification where an agent is the actor of an entry of a type the recipe does not know, or a member's act is the system's", async () => {
    const member = entries.find((entry) => entry.event_type === 'vote_cast')!.actor;
    const unknown = await withInvented(entries, {
      at: entries.at(-1)!.at,
      event_type: 'motion_withdrawn',
      actor: member,
      data: { agent_id: member },
    });
    expect(await firstProblem(unknown)).toEqual({
      seq: unknown.length,
      reason: 'motion_withdrawn is not an entry an agent can be the actor of',
    });
    const vote = entries.find((entry) => entry.event_type === 'vote_cast')!;
    const by_system = await withInvented(entries, {
      at: vote.at,
      event_type: 'vote_cast',
      actor: 'system',
      data: { ...vote.data, choice: 'nay' },
    });
    expect(await firstProblem(by_system)).toEqual({
      seq: by_system.length,
      reason: 'vote_cast is not an entry the system can be the actor of',
    });
  });
});

describe("the recipe's event types", () => {
  it('classify every event type the engine can emit, so a new one is not left unchecked by tessera-agent verify', () => {
    const sources = readdirSync(new URL('../engine', import.meta.url), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts'),
    );
    const emitted = new Set<string>();
    for (const file of sources) {
      for (const match of readFileSync(new URL(`../engine/${file}`, import.meta.url), 'utf8').matchAll(
        /event_type: '([a-z0-9_]+)'/g,
      ))
        emitted.add(match[1]!);
    }
    expect(emitted.size).toBeGreaterThanOrEqual(30);
    expect([...emitted].filter((event_type) => eventClass(event_type) === undefined)).toEqual([]);
  });
});
