import { z } from 'zod';
import type { BulletinItem, ChronicleItem, Dispatch } from '../governance/governance_state.js';
import { defineRead, IsoTime, limitArg } from '../read.js';
import { isoAt } from '../time.js';

const DispatchSchema = z.object({
  dispatch_id: z.int(),
  at: IsoTime,
  text: z.string(),
  items: z.int(),
  note: z.string().optional().describe("The Founder's own words, when the Founder wrote any"),
});

const BulletinItemSchema = z.object({
  bulletin_id: z.int(),
  agent_id: z.string(),
  at: IsoTime,
  title: z.string(),
  body: z.string(),
});

const ChronicleItemSchema = z.object({
  chronicle_id: z.int(),
  at: IsoTime,
  kind: z.string(),
  text: z.string(),
});

function dispatchView({ dispatch_id, at_ms, text, items, note }: Dispatch) {
  return { dispatch_id, at: isoAt(at_ms), text, items: items.length, ...(note === undefined ? {} : { note }) };
}

function bulletinView({ bulletin_id, agent_id, at_ms, title, body }: BulletinItem) {
  return { bulletin_id, agent_id, at: isoAt(at_ms), title, body };
}

function chronicleView({ chronicle_id, at_ms, kind, text }: ChronicleItem) {
  return { chronicle_id, at: isoAt(at_ms), kind, text };
}

export const dispatchList = defineRead({
  name: 'dispatch_list',
  title: 'Dispatches',
  summary: "The Founder's Dispatches, newest first: each says what was applied and resolved since the one before.",
  path: '/api/v1/dispatches',
  args: z.object({ limit: limitArg(200, 30, 'Dispatches') }),
  response: { kind: 'json', schema: z.object({ dispatches: z.array(DispatchSchema) }) },
  view: ({ state }, { limit }) => ({
    dispatches: state.governance.dispatches.slice(-limit).reverse().map(dispatchView),
  }),
});

/**
 * A page of a history, newest first: at most `limit` items whose id is below `before` (all,
 * without it). Histories only grow at their end, in ascending id order, so the page's end
 * is found by bisection: a page deep in a long chronicle costs its length, not the history's.
 */
export function newestBefore<T>(
  items: readonly T[],
  idOf: (item: T) => number,
  before: number | undefined,
  limit: number,
): T[] {
  let end = items.length;
  if (before !== undefined) {
    // The first index whose id is at least `before`.
    let low = 0;
    while (low < end) {
      const middle = (low + end) >>> 1;
      if (idOf(items[middle]!) < before) low = middle + 1;
      else end = middle;
    }
  }
  return items.slice(Math.max(0, end - limit), end).reverse();
}

export const bulletinList = defineRead({
  name: 'bulletin_list',
  title: 'Bulletin',
  summary: "The members' bulletin, newest first; before reads the posts older than that bulletin_id.",
  path: '/api/v1/bulletin',
  args: z.object({
    before: z.int().min(0).optional().describe('Only posts older than this bulletin_id; absent: the newest'),
    limit: limitArg(500, 50, 'posts'),
  }),
  response: { kind: 'json', schema: z.object({ items: z.array(BulletinItemSchema) }) },
  view: ({ state }, { before, limit }) => ({
    items: newestBefore(state.governance.bulletin, (item) => item.bulletin_id, before, limit).map(bulletinView),
  }),
});

export const chronicleList = defineRead({
  name: 'chronicle_list',
  title: 'Chronicle',
  summary: 'What happened in the society, newest first; before reads the entries older than that chronicle_id.',
  path: '/api/v1/chronicle',
  args: z.object({
    before: z.int().min(0).optional().describe('Only entries older than this chronicle_id; absent: the newest'),
    limit: limitArg(500, 50, 'chronicle entries'),
  }),
  response: { kind: 'json', schema: z.object({ items: z.array(ChronicleItemSchema) }) },
  view: ({ state }, { before, limit }) => ({
    items: newestBefore(state.governance.chronicle, (item) => item.chronicle_id, before, limit).map(chronicleView),
  }),
});
