import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../api/config.js';
import { generateKey, type AgentKey } from '../client/keys.js';
import { electorateCount } from '../engine/governance/electorate.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, type RawResponse } from './helpers/signed.js';
import { join, type Member } from './helpers/world.js';

/**
 * The Sybil flood of issue 14, as an attacker runs it: one address registering as
 * fast as it can, then a motion whose quorum the flood tried to inflate.
 */
let society: TestSociety;
const BURST = 3;

beforeAll(async () => {
  // One registration a second per address, three at once: low enough to reach in a test, with Retry-After 1.
  society = await startTestSociety({
    genesis: { world_seed: 'world-tests' },
    config: { registration_limits: { registrations_per_hour: 3600, burst_registrations: BURST } },
  });
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

function registration(key: AgentKey, handle: string, nonce?: string): Promise<RawResponse & { nonce: string }> {
  return rawSigned(society.url, {
    path: '/api/v1/register',
    body: { pubkey: key.public_key, handle, declared_runtime: '', backup_pubkey: null },
    key,
    ...(nonce ? { nonce } : {}),
  });
}

/** A member act (it needs Proof of Machine, which the client answers): what makes a member count toward quorum. */
async function act(member: Member): Promise<void> {
  await member.client.act('bulletin_post', { title: 'Hello', body: `${member.id} was here` });
}

/** Waits out the registration limit: the test clock moves, the refill follows it. */
function refill(): void {
  society.advance(BURST * 1000);
}

describe('a registration flood from one address', () => {
  let honest: Member[] = [];
  let sybils: AgentKey[] = [];

  it('is refused past the burst with 429 RATE_LIMITED and Retry-After, recording nothing and spending no nonce', async () => {
    honest = [];
    for (const handle of ['ada', 'bob', 'cyd']) honest.push(await join(society, handle));
    for (const member of honest) await act(member);
    refill();

    const agents_before = society.engine.state.agents.size;
    sybils = await Promise.all(Array.from({ length: 20 }, () => generateKey()));
    const answers = await Promise.all(sybils.map((key, index) => registration(key, `sybil-${index}`)));
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted).toHaveLength(BURST);
    expect(refused).toHaveLength(sybils.length - BURST);
    for (const answer of refused) {
      expect([answer.status, answer.body.error, answer.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '1']);
    }
    expect(society.engine.state.agents.size).toBe(agents_before + BURST);

    // One more, alone, so the ledger can be watched: its head does not move.
    const head = society.store.ledgerHead();
    const late_key = await generateKey();
    const late = await registration(late_key, 'sybil-late');
    expect([late.status, late.body.error]).toEqual([429, 'RATE_LIMITED']);
    expect(society.store.ledgerHead()).toEqual(head);
    expect(society.engine.state.agents.has(late_key.agent_id)).toBe(false);

    // Its nonce was not spent: once the limit allows, the same nonce registers the same key.
    society.advance(1000);
    const retried = await registration(late_key, 'sybil-late', late.nonce);
    expect(retried.status).toBe(200);
    sybils = [...sybils.filter((key) => society.engine.state.agents.has(key.agent_id)), late_key];
    expect(sybils).toHaveLength(BURST + 1);
  });

  it('leaves quorum where the members who act put it: never-acting Sybils, however many, do not count', async () => {
    // Three hundred more that never act, as if from three hundred addresses (straight into the engine).
    const many = await Promise.all(Array.from({ length: 300 }, () => generateKey()));
    const registered = await Promise.all(
      many.map((key, index) =>
        society.engine.submit({
          act: 'register',
          actor: key.agent_id,
          payload: { pubkey: key.public_key, handle: `far-${index}`, declared_runtime: '', backup_pubkey: null },
        }),
      ),
    );
    expect(registered.every((result) => result.ok)).toBe(true);

    // A member who registered and acted before the opening counts.
    refill();
    const dio = await join(society, 'dio');
    await act(dio);
    // A dormant Sybil that wakes up after the opening does not; nor does a member who registered after it.
    const dormant = await join(society, 'dormant');
    society.advance(1000);

    const [ada] = honest;
    const filed = await ada!.client.act<{ motion_id: string }>('motion_propose', {
      title: 'Plant more forests',
      body: '',
      changes: [],
    });
    const motion_id = filed.result.motion_id;
    society.advance(1000);
    const opened = (await ada!.client.act<any>('motion_open', { motion_id })).result;
    refill();
    await act(dormant);
    const eve = await join(society, 'eve');
    await act(eve);

    // ada, bob, cyd and dio: the 300 + 4 Sybils, the dormant one and eve are not in the electorate.
    expect(opened).toMatchObject({ quorum_snapshot: 4, quorum_required: 3 });
    expect(society.engine.state.governance.motions[motion_id]).toMatchObject({
      quorum_snapshot: 4,
      quorum_required: 3,
    });
    expect(society.engine.state.agents.size).toBeGreaterThan(300);
  });
});

describe('a registration flood that names other addresses', () => {
  it("is counted by the connection's address: X-Forwarded-For, X-Real-IP and Forwarded are not believed", async () => {
    refill();
    const keys = await Promise.all(Array.from({ length: BURST + 3 }, () => generateKey()));
    const answers: RawResponse[] = [];
    for (const [index, key] of keys.entries()) {
      const claimed = `203.0.113.${index + 1}`;
      answers.push(
        await rawSigned(society.url, {
          path: '/api/v1/register',
          body: { pubkey: key.public_key, handle: `masked-${index}`, declared_runtime: '', backup_pubkey: null },
          key,
          headers: { 'x-forwarded-for': claimed, 'x-real-ip': claimed, forwarded: `for=${claimed}` },
        }),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual([...Array<number>(BURST).fill(200), 429, 429, 429]);
  });
});

describe('a draft kept back', () => {
  it('faces the electorate of the day it opens: a draft filed when the society was small cannot be opened later against its old, low quorum', async () => {
    refill();
    const ada = await join(society, 'ada-2');
    await act(ada);
    society.advance(1000);
    const stale = (
      await ada.client.act<{ motion_id: string }>('motion_propose', {
        title: 'Filed early, opened late',
        body: '',
        changes: [],
      })
    ).result.motion_id;
    const current = (
      await ada.client.act<{ motion_id: string }>('motion_propose', { title: 'Opened at once', body: '', changes: [] })
    ).result.motion_id;
    society.advance(1000);
    await ada.client.act('motion_open', { motion_id: current });
    const filed_electorate = electorateCount(
      society.engine.state,
      society.engine.state.governance.motions[stale]!.filed_at_ms,
    );

    // The society grows after the filing: forty members join (as if from forty addresses) and take part.
    const newcomers = await Promise.all(Array.from({ length: 40 }, () => generateKey()));
    for (const [index, key] of newcomers.entries()) {
      const joined = await society.engine.submit({
        act: 'register',
        actor: key.agent_id,
        payload: { pubkey: key.public_key, handle: `later-${index}`, declared_runtime: '', backup_pubkey: null },
      });
      const voted = await society.engine.submit({
        act: 'vote_cast',
        actor: key.agent_id,
        payload: { motion_id: current, choice: 'aye' },
      });
      expect([joined.ok, voted.ok]).toEqual([true, true]);
    }
    society.advance(1000);

    const opened = (await ada.client.act<any>('motion_open', { motion_id: stale })).result;
    expect(opened.quorum_snapshot).toBe(filed_electorate + newcomers.length);
    expect(opened.quorum_required).toBeGreaterThan(3);
  });
});

describe('the registration limit settings', () => {
  it('default to a handful an hour per address, and are read from the environment', () => {
    expect(configFromEnv({}).registration_limits).toEqual({ registrations_per_hour: 6, burst_registrations: 10 });
    expect(configFromEnv({ REGISTRATIONS_PER_HOUR: '60', REGISTRATION_BURST: '2' }).registration_limits).toEqual({
      registrations_per_hour: 60,
      burst_registrations: 2,
    });
    expect(() => configFromEnv({ REGISTRATIONS_PER_HOUR: '0' })).toThrow(/REGISTRATIONS_PER_HOUR/);
  });
});
