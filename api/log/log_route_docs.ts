import { z } from 'zod';
import { jsonAnswer, type RouteAnswer, type RouteDoc } from '../route_docs.js';
import { ConsistencyQuery, InclusionQuery, LOG_PREFIX } from './log_routes.js';

const OCTETS = 'application/octet-stream';
const TILE_MOUNT = `${LOG_PREFIX}/tile/*`;

const TileIndex = z
  .string()
  .regex(/^(x\d{3}\/)*\d{3}$/)
  .describe('The tile index in three-digit groups, all but the last prefixed with x: 1234067 is x001/x234/067');
const Level = z.int().min(0).max(63).describe('The tile level: its hashes are of tree level 8 * level');
const Width = z.int().min(1).max(255).describe('How many hashes (or entries) a partial tile holds');

const CACHING = {
  ETag: {
    description:
      'The SHA-256 of the bytes, quoted; with -gzip or -br inside the quotes when the answer is compressed (each representation has its own): send it back in If-None-Match',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'A full tile: public, max-age=31536000, immutable; a partial one: public, max-age=1',
    schema: { type: 'string' },
  },
};

function tileDoc(path: string, summary: string, args: z.ZodObject): RouteDoc {
  const answers: RouteAnswer[] = [
    { status: 200, media_type: OCTETS, description: summary, headers: CACHING },
    { status: 304, media_type: OCTETS, description: 'Unchanged since the If-None-Match sent: no body' },
  ];
  const description =
    'C2SP tlog-tiles, below the prefix /log. 404 for a path that is not the canonical path of a tile, and for a ' +
    'tile the committed tree does not hold all of yet.';
  return { method: 'GET', path, summary, description, mounted: TILE_MOUNT, args, answers, refusals: ['NOT_FOUND'] };
}

const HASHES = 'concatenated 32-byte SHA-256 hashes (RFC 6962): level 0 the leaf hashes, above that subtree roots';
const ENTRIES = 'each ledger entry (its served JSON) as a big-endian uint16 length and its UTF-8 bytes';

const Base64Hash = z.base64().describe('A SHA-256 hash in standard base64 with padding');
const InclusionProof = z.object({
  leaf_index: z.int(),
  tree_size: z.int(),
  root_hash: Base64Hash,
  inclusion_proof: z.array(Base64Hash).describe('RFC 9162 section 2.1.3: from the leaf up'),
});
const ConsistencyProof = z.object({
  old_size: z.int(),
  new_size: z.int(),
  consistency_proof: z.array(Base64Hash).describe('RFC 9162 section 2.1.4'),
});

/** The transparency log's read routes: tiles, entry bundles, proofs. */
export const LOG_ROUTE_DOCS: readonly RouteDoc[] = [
  tileDoc(
    `${LOG_PREFIX}/tile/{level}/{tile_index}`,
    `A full tile of 256 hashes: ${HASHES}`,
    z.object({
      level: Level,
      tile_index: TileIndex,
    }),
  ),
  tileDoc(
    `${LOG_PREFIX}/tile/{level}/{tile_index}.p/{width}`,
    `A partial tile of width hashes: ${HASHES}`,
    z.object({
      level: Level,
      tile_index: TileIndex,
      width: Width,
    }),
  ),
  tileDoc(
    `${LOG_PREFIX}/tile/entries/{tile_index}`,
    `A full entry bundle of 256 entries: ${ENTRIES}`,
    z.object({
      tile_index: TileIndex,
    }),
  ),
  tileDoc(
    `${LOG_PREFIX}/tile/entries/{tile_index}.p/{width}`,
    `A partial entry bundle of width entries: ${ENTRIES}`,
    z.object({ tile_index: TileIndex, width: Width }),
  ),
  {
    method: 'GET',
    path: `${LOG_PREFIX}/proof/inclusion`,
    summary: 'The inclusion proof of leaf index in the tree of size leaves, with that tree’s root',
    description:
      'Leaf index is ledger entry seq index + 1. A size beyond the committed tree, or an index not below size, ' +
      'is refused with 422 naming the value at fault. Immutable: cached for a year.',
    args: InclusionQuery,
    answers: [jsonAnswer(InclusionProof, 'The proof')],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: `${LOG_PREFIX}/proof/consistency`,
    summary: 'The consistency proof from the tree of old leaves to the tree of new leaves',
    description:
      'Empty when old is 0 or equals new. A new beyond the committed tree, or an old above new, is refused with ' +
      '422 naming the value at fault. Immutable: cached for a year.',
    args: ConsistencyQuery,
    answers: [jsonAnswer(ConsistencyProof, 'The proof')],
    refusals: ['VALIDATION_FAILED'],
  },
];
