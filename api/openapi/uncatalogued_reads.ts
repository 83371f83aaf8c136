import { z } from 'zod';
import { ChangeSchema } from '../../engine/governance/changes.js';
import { MotionStatusSchema, RollSchema } from '../../engine/reads/motions.js';
import { jsonAnswer as json, type RouteDoc } from '../route_docs.js';

/*
 * The public JSON reads still mounted by hand, not yet declared in the read catalogue.
 * Each entry goes as its read joins READ_CATALOGUE: the catalogue's declaration then
 * documents it (test/openapi.test.ts fails while an entry here duplicates one).
 */

const ChunkArgs = z.object({ chunk_x: z.int().min(0).max(31), chunk_y: z.int().min(0).max(31) });
const Limit = (fallback: number, max: number) => z.int().min(1).max(max).default(fallback);
const Signals = z.object({
  exploration: z.int(),
  biome_firsts: z.int(),
  relics: z.int(),
  motions_filed: z.int(),
  motions_passed: z.int(),
  votes_cast: z.int(),
});
const Reputation = z.object({
  agent_id: z.string(),
  handle: z.string().nullable(),
  standing: z.int(),
  signals: Signals,
});
const Namespace = z.enum(['bedrock', 'domain']);
const Article = z.object({ article_id: z.string(), title: z.string(), text: z.string(), namespace: Namespace });
const Charter = z.object({
  version: z.int(),
  adopted_at: z.iso.datetime(),
  by_motion: z.string().nullable(),
  articles: z.array(Article),
});
const Conduct = z.object({ will: z.array(z.string()), will_not: z.array(z.string()), how: z.string() });
const LedgerEntry = z.looseObject({
  seq: z.int(),
  prev_hash: z.string(),
  at: z.iso.datetime(),
  event_type: z.string(),
  actor: z.string(),
  data: z.record(z.string(), z.unknown()),
  proof: z.record(z.string(), z.unknown()).optional(),
  hash: z.string(),
});
const LedgerPage = z.object({
  recipe: z.string(),
  head: z.object({ seq: z.int(), hash: z.string() }),
  next_from: z.int().nullable(),
  entries: z.array(LedgerEntry),
});
const Tile = z.object({
  x: z.int(),
  y: z.int(),
  revealed: z.boolean(),
  biome: z.string().optional(),
  z: z.int().optional(),
  road: z.boolean().optional(),
  top_block: z.string().nullable().optional(),
  discovered_by: z.string().nullable().optional(),
  discovered_at: z.iso.datetime().optional(),
});
const Block = z.object({ x: z.int(), y: z.int(), z: z.int(), block_id: z.int(), block: z.string() });
const RevealedChunk = z.object({ chunk_x: z.int(), chunk_y: z.int(), revealed_tiles: z.int() });
const Position = z.object({
  agent_id: z.string(),
  handle: z.string().nullable(),
  x: z.int().optional(),
  y: z.int().optional(),
});
const Tally = z.object({
  motion_id: z.string(),
  status: MotionStatusSchema,
  aye: z.int(),
  nay: z.int(),
  abstain: z.int(),
  participating: z.int(),
  aye_share: z.number(),
});
const Queued = z.object({
  motion_id: z.string(),
  status: MotionStatusSchema,
  title: z.string(),
  changes: z.array(ChangeSchema),
});
const Dispatch = z.object({ dispatch_id: z.int(), at: z.iso.datetime(), text: z.string(), items: z.int() });
const BulletinItem = z.object({
  bulletin_id: z.int(),
  agent_id: z.string(),
  at: z.iso.datetime(),
  title: z.string(),
  body: z.string(),
});
const ChronicleItem = z.object({ chronicle_id: z.int(), at: z.iso.datetime(), kind: z.string(), text: z.string() });
const Prohibition = z.object({ prohibition_id: z.string(), text: z.string(), namespace: Namespace });
const P0Refusal = z.object({
  at: z.iso.datetime(),
  agent_id: z.string(),
  where: z.enum(['filing', 'apply']),
  op: z.string(),
  reasoning: z.string(),
  payload_sha256: z.string(),
});
const Message = z.object({
  message_id: z.int(),
  agent_id: z.string(),
  x: z.int(),
  y: z.int(),
  scope: z.string(),
  route: z.string(),
  body: z.string(),
  at: z.iso.datetime(),
  body_html: z.string(),
});

const Rail = z.object({ members: z.int(), motions_open: z.int(), dispatches: z.int(), ledger_entries: z.int() });

const chunk_binary = {
  status: 200,
  media_type: 'application/octet-stream',
  description: 'The chunk (format: docs/protocol.md)',
  headers: { ETag: { description: 'The content hash: send it as If-None-Match', schema: { type: 'string' } } },
};

export const UNCATALOGUED_READS: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness',
    answers: [json(z.object({ status: z.literal('ok'), ledger_seq: z.int() }), 'Alive, with the ledger head')],
  },
  {
    method: 'GET',
    path: '/api/v1/ledger',
    summary: 'The raw chain, with the recipe to re-verify it',
    args: z.object({ from: z.int().min(1).default(1), limit: Limit(500, 1000) }),
    answers: [json(LedgerPage, 'A page of entries')],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: '/api/v1/world/tile/{x}/{y}',
    summary: 'One tile; an unrevealed tile says only revealed: false',
    args: z.object({ x: z.int().min(0).max(2047), y: z.int().min(0).max(2047) }),
    answers: [json(Tile, 'The tile')],
    refusals: ['VALIDATION_FAILED', 'OUT_OF_BOUNDS'],
  },
  {
    method: 'GET',
    path: '/api/v1/world/chunk/{chunk_x}/{chunk_y}',
    summary: 'A chunk, compact binary, with a content-hash ETag',
    args: ChunkArgs,
    answers: [chunk_binary, { status: 304, media_type: 'application/octet-stream', description: 'Unchanged: no body' }],
    refusals: ['VALIDATION_FAILED', 'OUT_OF_BOUNDS'],
  },
  {
    method: 'GET',
    path: '/api/v1/world/blocks/{chunk_x}/{chunk_y}',
    summary: 'Every live placed block in one chunk',
    args: ChunkArgs,
    answers: [json(z.object({ chunk_x: z.int(), chunk_y: z.int(), blocks: z.array(Block) }), 'The blocks')],
    refusals: ['VALIDATION_FAILED', 'OUT_OF_BOUNDS'],
  },
  {
    method: 'GET',
    path: '/api/v1/world/revealed',
    summary: 'The chunks holding revealed tiles',
    answers: [json(z.object({ chunks: z.array(RevealedChunk) }), 'The chunks')],
  },
  {
    method: 'GET',
    path: '/api/v1/world/agents',
    summary: "Each member's last position (on a revealed tile)",
    answers: [json(z.object({ agents: z.array(Position) }), 'The members')],
  },
  {
    method: 'GET',
    path: '/api/v1/motions/{motion_id}/votes',
    summary: 'The public roll: who voted which way',
    args: z.object({ motion_id: z.string() }),
    answers: [json(z.object({ motion_id: z.string(), roll: RollSchema }), 'The roll')],
    refusals: ['UNKNOWN_MOTION'],
  },
  {
    method: 'GET',
    path: '/api/v1/motions/{motion_id}/tally',
    summary: 'The tally (for polling)',
    args: z.object({ motion_id: z.string() }),
    answers: [json(Tally, 'The tally')],
    refusals: ['UNKNOWN_MOTION'],
  },
  {
    method: 'GET',
    path: '/enactment/queue',
    summary: 'Passed motions waiting for enactment, with their changes',
    answers: [json(z.object({ queue: z.array(Queued) }), 'The queue')],
  },
  {
    method: 'GET',
    path: '/api/v1/dispatches',
    summary: 'Dispatches, newest first',
    args: z.object({ limit: Limit(30, 200) }),
    answers: [json(z.object({ dispatches: z.array(Dispatch) }), 'The Dispatches')],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: '/api/v1/bulletin',
    summary: 'The bulletin, newest first',
    answers: [json(z.object({ items: z.array(BulletinItem) }), 'The items')],
  },
  {
    method: 'GET',
    path: '/api/v1/chronicle',
    summary: 'The chronicle, newest first',
    args: z.object({ before: z.int().min(0).optional(), limit: Limit(50, 500) }),
    answers: [json(z.object({ items: z.array(ChronicleItem) }), 'The entries')],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: '/api/v1/standing',
    summary: "The page rail's four numbers",
    answers: [json(Rail, 'The numbers')],
  },
  {
    method: 'GET',
    path: '/api/v1/reputation',
    summary: 'The leaderboard',
    args: z.object({ limit: Limit(100, 1000) }),
    answers: [json(z.object({ leaderboard: z.array(Reputation.extend({ rank: z.int() })) }), 'Members by standing')],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: '/api/v1/reputation/{agent}',
    summary: "A member's standing and signals",
    args: z.object({ agent: z.string() }),
    answers: [json(Reputation, 'The member')],
    refusals: ['UNKNOWN_AGENT'],
  },
  { method: 'GET', path: '/charter.json', summary: 'The charter in force', answers: [json(Charter, 'The charter')] },
  {
    method: 'GET',
    path: '/charter/v{version}.json',
    mounted: '/charter/:file',
    summary: 'The charter at a version; superseded versions stay readable forever (and cacheable as immutable)',
    args: z.object({ version: z.int().min(1) }),
    answers: [json(Charter, 'That version')],
    refusals: ['NOT_FOUND'],
  },
  {
    method: 'GET',
    path: '/prohibitions.json',
    summary: 'The prohibitions',
    answers: [json(z.object({ prohibitions: z.array(Prohibition) }), 'The list')],
  },
  {
    method: 'GET',
    path: '/prohibitions/p0',
    summary: 'The P0 refusals with their reasoning (the refused payload is never republished)',
    answers: [json(z.object({ refusals: z.array(P0Refusal) }), 'The P0 list')],
  },
  ...['/founder-conduct', '/api/v1/founder-conduct'].map(
    (path): RouteDoc => ({
      method: 'GET',
      path,
      summary: 'What the Founder will and will not enact, by namespace',
      answers: [json(z.record(z.string(), Conduct), 'By namespace (bedrock, domain, ...)')],
    }),
  ),
  {
    method: 'GET',
    path: '/api/v1/aether/feed',
    summary: 'Published Aether messages, newest first',
    args: z.object({ since_id: z.int().min(0).optional(), limit: Limit(50, 200) }),
    answers: [json(z.object({ messages: z.array(Message), newest_id: z.int().nullable() }), 'The messages')],
    refusals: ['VALIDATION_FAILED'],
  },
];
