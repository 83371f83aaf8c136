import { describe, expect, it } from 'vitest';
import type { ReadContext } from '../engine/read.js';
import { bulletinList, chronicleList } from '../engine/reads/publications.js';

/** A context holding only the histories these views read: 120 bulletin posts and chronicle items, ids 1..120. */
function contextWith(count: number): ReadContext {
  const ids = Array.from({ length: count }, (_, index) => index + 1);
  const bulletin = ids.map((bulletin_id) => ({
    bulletin_id,
    agent_id: 'ag_0000000000000001',
    at_ms: bulletin_id * 1000,
    title: `post ${bulletin_id}`,
    body: '',
  }));
  const chronicle = ids.map((chronicle_id) => ({
    chronicle_id,
    at_ms: chronicle_id * 1000,
    kind: 'note',
    text: `item ${chronicle_id}`,
  }));
  return { state: { governance: { bulletin, chronicle } } } as unknown as ReadContext;
}

describe('the bulletin and the chronicle, paged newest first', () => {
  const context = contextWith(120);

  it('answers the newest 50 by default, newest first, and never the whole history', () => {
    const { items } = bulletinList.view(context, bulletinList.args.parse({})) as { items: { bulletin_id: number }[] };
    expect(items.map((item) => item.bulletin_id)).toEqual(Array.from({ length: 50 }, (_, index) => 120 - index));
  });

  it('reads the page before an id, and an empty page past the oldest', () => {
    const page = (before: number, limit: number) =>
      (bulletinList.view(context, { before, limit }) as { items: { bulletin_id: number }[] }).items.map(
        (item) => item.bulletin_id,
      );
    expect(page(71, 50)).toEqual(Array.from({ length: 50 }, (_, index) => 70 - index));
    expect(page(21, 50)).toEqual(Array.from({ length: 20 }, (_, index) => 20 - index));
    expect(page(1, 50)).toEqual([]);
  });

  it('pages the chronicle the same way', () => {
    const { items } = chronicleList.view(context, { before: 101, limit: 3 }) as { items: { chronicle_id: number }[] };
    expect(items.map((item) => item.chronicle_id)).toEqual([100, 99, 98]);
  });

  it('refuses a limit beyond 500 or below 1 before any view runs', () => {
    expect(bulletinList.args.safeParse({ limit: 501 }).success).toBe(false);
    expect(bulletinList.args.safeParse({ limit: 0 }).success).toBe(false);
  });
});
