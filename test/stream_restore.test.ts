import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistoryRewritten } from '../client/event_stream.js';
import { TesseraClient } from '../client/sdk.js';
import { startTestSociety, tempDir, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

const STORE_FILE = ['store', 'data.mdb'] as const;

/** The stream's first events, read until `count` have arrived. */
async function firstEvents(url: string, headers: Record<string, string>, count: number) {
  const response = await fetch(`${url}/api/v1/events`, { headers });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const events = () => text.split('\n\n').filter((block) => /^(event|data|id):/m.test(block));
  while (events().length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return events().map((block) => ({
    id: /^id: (.*)$/m.exec(block)?.[1],
    event: /^event: (.*)$/m.exec(block)?.[1],
    data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>,
  }));
}

const data_dir = tempDir('tessera-stream-restore-');
let society: TestSociety | undefined;
/** The last seq of the history the restore gave up, as a client following it saw. */
let last_seen = 0;
afterAll(async () => {
  await society?.close();
  rmSync(data_dir, { recursive: true, force: true });
});

describe('an event stream resumed across a restore', () => {
  it('is told that history was rewritten from the restored head, and resumes there, skipping nothing', async () => {
    society = await startTestSociety({ data_dir, genesis: { world_seed: 'stream-restore' } });
    await join(society, 'before-backup');
    const backup_seq = society.store.ledgerHead().seq;
    await society.close();
    const backup = pathJoin(data_dir, 'backup');
    mkdirSync(backup);
    copyFileSync(pathJoin(data_dir, ...STORE_FILE), pathJoin(backup, 'data.mdb'));

    // History a client follows, later given up: it saw every seq up to last_seen.
    society = await startTestSociety({ data_dir });
    // A registration is one entry, or three when the newcomer lands in a biome nobody had found (the
    // discovery and its standing): the history given up outruns the one registration after the restore.
    for (let joined = 1; society.store.ledgerHead().seq < backup_seq + 4; joined++)
      await join(society, `given-up-${joined}`);
    last_seen = society.store.ledgerHead().seq;
    expect(last_seen).toBeGreaterThan(backup_seq);
    await society.close();

    // The restore: the backup's store put back, as the README's procedure does.
    copyFileSync(pathJoin(backup, 'data.mdb'), pathJoin(data_dir, ...STORE_FILE));
    society = await startTestSociety({ data_dir });
    expect(society.store.ledgerHead().seq).toBe(backup_seq);

    const reading = firstEvents(society.url, { 'Last-Event-ID': String(last_seen) }, 2);
    const after_restore = await join(society, 'after-restore');
    const [told, first] = await reading;
    expect(told).toEqual({
      id: undefined,
      event: 'rewritten',
      data: { rewritten_from: backup_seq + 1, last_event_id: last_seen },
    });
    // The entry that took the first rewritten seq is sent, not skipped as the old seq would have it.
    expect([first!.id, first!.event, first!.data.seq]).toEqual([String(backup_seq + 1), 'entry', backup_seq + 1]);
    expect(first!.data.actor).toBe(after_restore.id);
  });

  it("is told to the SDK's follower, which goes on from the rewritten seq", async () => {
    const head = society!.store.ledgerHead().seq;
    expect(last_seen).toBeGreaterThan(head);
    const told: HistoryRewritten[] = [];
    const controller = new AbortController();
    const following = new TesseraClient(society!.url)
      .follow({ after: last_seen, signal: controller.signal, on_rewritten: (rewritten) => void told.push(rewritten) })
      [Symbol.asyncIterator]();
    const first = following.next();
    const newcomer = await join(society!, 'after-rewritten');
    const { value: entry } = await first;
    controller.abort();
    expect(told).toEqual([{ rewritten_from: head + 1, last_event_id: last_seen }]);
    // The entry at the first rewritten seq, not one after the seq of the history given up.
    expect([entry!.seq, entry!.actor]).toEqual([head + 1, newcomer.id]);
  });

  it('resumes a client within this history as before, with no rewritten event', async () => {
    const head = society!.store.ledgerHead().seq;
    const reading = firstEvents(society!.url, { 'Last-Event-ID': String(head) }, 1);
    await join(society!, 'later');
    const [next] = await reading;
    expect([next!.event, next!.id]).toEqual(['entry', String(head + 1)]);
  });
});
