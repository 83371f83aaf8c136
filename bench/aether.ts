import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageView } from '../api/aether_routes.js';
import { feedPage } from '../engine/index.js';
import type { AetherMessage } from '../engine/aether/aether_state.js';
import { Engine, type Submission } from '../engine/engine.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { BareLedger, bareAndFloorTasks, durableRates, type DurableRates, type EntryDraft } from './bare_ledger.js';
import { opsPerSecond } from './measure.js';
import { freshPubkey, memorySociety, registerMembers } from './members.js';
import { pomAnswer } from './pom_answer.js';

function history(count: number): AetherMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    message_id: i + 1,
    agent_id: 'ag_0123456789abcdef',
    x: 1024,
    y: 1024,
    scope: 'auto',
    route: 'global',
    body: `message ${i} with https://example.org/${i}`,
    at_ms: i,
    publish_at_ms: i,
  }));
}

/** A since_id read of the newest 50 messages of a 100,000-message history, against the same read of a 1,000-message one. */
export async function benchFeed(): Promise<{ large: number; small: number }> {
  const large = history(100_000);
  const small = history(1_000);
  const rates = await opsPerSecond(
    [
      {
        name: 'large',
        ops_per_call: 1,
        fn: () => feedPage(large, large.length - 50, 50, Number.MAX_SAFE_INTEGER).map(messageView),
      },
      {
        name: 'small',
        ops_per_call: 1,
        fn: () => feedPage(small, small.length - 50, 50, Number.MAX_SAFE_INTEGER).map(messageView),
      },
    ],
    1000,
  );
  return { large: rates.large!, small: rates.small! };
}

const sends_per_call = 512;

/** aether_send through the engine, durable, with Proof of Machine answered, beside the bare limit of the same entries. */
export async function benchSends(sender_count = 2048): Promise<DurableRates> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-aether-'));
  let now = Date.parse('2026-11-21T10:00:00Z');
  const store = new LmdbStore(join(dir, 'engine'));
  const engine = await Engine.open(
    store,
    { founder_pubkey: freshPubkey(), params: { aether_messages_per_minute_max: 1000, pom_deadline_ms: 60_000 } },
    { clock: () => (now += 1) },
  );
  const bare = new BareLedger(dir);
  try {
    const ids = await registerMembers(engine, sender_count, 'speaker');
    const proof = {
      method: 'POST',
      path: '/api/v1/act',
      nonce: '',
      body: '',
      signature: randomBytes(64).toString('base64url'),
    };
    let cursor = 0;
    let batch: Submission[] = [];
    // Untimed: each sender asks for its challenge; the timed part answers it with the send.
    const prepare = async () => {
      const senders = Array.from({ length: sends_per_call }, () => ids[cursor++ % ids.length]!);
      const answers = await Promise.all(senders.map((actor) => pomAnswer(engine, actor, 'aether_send')));
      batch = senders.map((actor, i) => {
        const { challenge_id, puzzle_solution } = answers[i]!;
        const body = `a message from ${actor}`;
        return {
          act: 'aether_send',
          actor,
          payload: { body, scope: 'auto', route: 'global' },
          pom: { challenge_id, puzzle_solution },
          proof: {
            ...proof,
            nonce: randomBytes(18).toString('base64url'),
            body: `{"act":"aether_send","challenge_id":"${challenge_id}","payload":{"body":"${body}","route":"global","scope":"auto"},"puzzle_solution":"${puzzle_solution}"}`,
          },
        };
      });
    };
    // The same entries, with answers of the same shape, without asking the engine for challenges.
    const draft = (): EntryDraft[] =>
      Array.from({ length: sends_per_call }, (_, index) => {
        const actor = ids[index]!;
        const pom = { challenge_id: `pom-${index}`, puzzle_solution: randomBytes(32).toString('hex') };
        const payload = { body: `a message from ${actor}`, scope: 'auto', route: 'global' };
        const body = `{"act":"aether_send","challenge_id":"${pom.challenge_id}","payload":{"body":"${payload.body}","route":"global","scope":"auto"},"puzzle_solution":"${pom.puzzle_solution}"}`;
        const signed = { ...proof, nonce: randomBytes(18).toString('base64url'), body };
        return {
          at_ms: now,
          event: {
            event_type: 'aether_sent',
            actor,
            data: {
              agent_id: actor,
              message_id: index + 1,
              publish_at: '2026-11-21T10:00:00.000+00:00',
              route: 'global',
            },
          },
          proof: signed,
          action: { act: 'aether_send', actor, payload, proof: signed, pom },
        };
      });
    const rates = await opsPerSecond([
      {
        name: 'engine',
        ops_per_call: sends_per_call,
        beforeEach: prepare,
        fn: async () => {
          const outcomes = await Promise.all(batch.map((send) => engine.submit(send)));
          if (!outcomes[0]!.ok) throw new Error(`send refused: ${outcomes[0]!.code}`);
        },
      },
      ...bareAndFloorTasks(bare, sends_per_call, draft),
    ]);
    return durableRates(rates);
  } finally {
    await store.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Challenge requests per timed call: a batch of the size a busy Aether's tick takes. */
const challenges_per_call = 512;

/**
 * pom_challenge, which every Aether message needs first, in a society of 10,000 members each
 * holding two outstanding challenges, against the same request in a society of 100: the
 * request must cost the asker's own challenges, not everyone's (engine/pom/challenge_index.ts).
 * Both on the memory store: the commit is the same size on either side, the apply is the question.
 */
export async function benchChallenges(): Promise<{ large: number; small: number }> {
  const societies = await Promise.all(
    [10_000, 100].map(async (members) => {
      const { engine, ids, advance } = await memorySociety(members, 'asker', { pom_deadline_ms: 1_000 });
      const ask = (actor: string) => engine.submit({ act: 'pom_challenge', actor, payload: { intent: 'aether_send' } });
      for (let round = 0; round < 2; round++) await Promise.all(ids.map(ask));
      let cursor = 0;
      return {
        // A batch starts past every deadline: each asker clears its stale challenges and gets a new one,
        // never reaching the limit of 8, while the askers not reached yet keep theirs.
        fn: async () => {
          advance(2_000);
          const asked = await Promise.all(
            Array.from({ length: challenges_per_call }, () => ask(ids[cursor++ % ids.length]!)),
          );
          if (!asked[0]!.ok) throw new Error(`challenge refused: ${asked[0]!.code}`);
        },
        close: () => engine.drain(),
      };
    }),
  );
  try {
    const rates = await opsPerSecond([
      { name: 'large', ops_per_call: challenges_per_call, fn: societies[0]!.fn },
      { name: 'small', ops_per_call: challenges_per_call, fn: societies[1]!.fn },
    ]);
    return { large: rates.large!, small: rates.small! };
  } finally {
    await Promise.all(societies.map((society) => society.close()));
  }
}
