import type { Context } from 'koa';
import { z } from 'zod';
import type { FastAnswer } from '../fast_reads.js';
import { IMMUTABLE, routeArgsParser } from '../read_mount.js';
import { RefusalError, ValidationError } from '../refusal_error.js';
import type { Routes } from '../routes.js';
import type { LogTiles, LogView, ServedTile } from './log_tiles.js';
import { hashBase64 } from './transparency_log.js';

/** The log's routes live under this prefix: the tlog-tiles <prefix> is `<public url>/log`. */
export const LOG_PREFIX = '/log';
/** A partial tile is the edge of a growing tree: a client should look again soon for the wider one. */
export const PARTIAL_TILE_CACHE = 'public, max-age=1';
/** The route of every tile and bundle: its pattern, as the router and the metrics name it. */
export const TILE_ROUTE = `${LOG_PREFIX}/tile/*`;
/** Where tile paths start in a request's path (what follows is `tile/...`, as LogTiles.at takes it). */
export const TILE_PATH_AT = LOG_PREFIX.length + 1;

export const InclusionQuery = z.object({
  index: z.int().min(0).describe('The leaf index: ledger seq - 1'),
  size: z.int().min(1).describe('The tree size the proof leads to (at most the committed size)'),
});
export const ConsistencyQuery = z.object({
  old: z.int().min(0).describe('The smaller tree size'),
  new: z.int().min(0).describe('The larger tree size (at most the committed size)'),
});

/**
 * GET /log/tile/... (C2SP tlog-tiles: hash tiles and entry bundles) and the two proof
 * routes. Everything they show stops at the committed tree size; a tile or proof past it
 * does not exist yet.
 */
export function mountLogRoutes(router: Routes, tiles: LogTiles): void {
  const log = tiles.log;
  router.get(TILE_ROUTE, (ctx) => serveTile(ctx, tiles));

  const inclusionArgs = routeArgsParser(InclusionQuery, `${LOG_PREFIX}/proof/inclusion`);
  router.get(`${LOG_PREFIX}/proof/inclusion`, (ctx) => {
    const { index, size } = inclusionArgs(ctx) as z.output<typeof InclusionQuery>;
    atMostCommitted(log, 'size', size);
    if (index >= size) throw outOfRange('index', index, 'less_than', size, `must be below size (${size})`);
    const tree = log.tree();
    immutableJson(ctx, {
      leaf_index: index,
      tree_size: size,
      root_hash: hashBase64(tree.root(size)),
      inclusion_proof: tree.inclusionProof(index, size).map(hashBase64),
    });
  });

  const consistencyArgs = routeArgsParser(ConsistencyQuery, `${LOG_PREFIX}/proof/consistency`);
  router.get(`${LOG_PREFIX}/proof/consistency`, (ctx) => {
    const { old: old_size, new: new_size } = consistencyArgs(ctx) as z.output<typeof ConsistencyQuery>;
    atMostCommitted(log, 'new', new_size);
    if (old_size > new_size)
      throw outOfRange('old', old_size, 'less_than_equal', new_size, `must be at most new (${new_size})`);
    immutableJson(ctx, {
      old_size,
      new_size,
      consistency_proof: log.tree().consistencyProof(old_size, new_size).map(hashBase64),
    });
  });
}

function serveTile(ctx: Context, tiles: LogTiles): void {
  const served = tiles.at(ctx.path.slice(TILE_PATH_AT));
  // 404, not 422, for a malformed path too: to a tlog-tiles client a tile is there or it is not.
  if (!served) throw RefusalError.of('NOT_FOUND', `There is no tile at ${ctx.path} in the log as committed.`);
  const answer = tileAnswer(served, ctx.get('If-None-Match'));
  ctx.status = answer.status;
  ctx.set(answer.headers);
  if (answer.status === 200) ctx.body = served.bytes;
}

/** A tile's answer, whichever path serves it (this route, or the fast path in front of Koa). */
export type TileAnswer = FastAnswer;

/**
 * 200 with the tile's ETag, its cache lifetime and its type, or 304 with the first two
 * (as Koa answers a 304: no Content-Type, no body). Both header sets are made once per
 * kept tile, so a read allocates none.
 */
export function tileAnswer(served: ServedTile, if_none_match: string): TileAnswer {
  served.answers ??= tileAnswers(served);
  return holdsEtag(if_none_match, served.etag) ? served.answers.not_modified : served.answers.ok;
}

function tileAnswers(served: ServedTile): NonNullable<ServedTile['answers']> {
  const cached = { ETag: served.etag, 'Cache-Control': served.full ? IMMUTABLE : PARTIAL_TILE_CACHE };
  return {
    ok: {
      status: 200,
      headers: Object.freeze({ ...cached, 'Content-Type': 'application/octet-stream' }),
      body: served.bytes,
    },
    not_modified: { status: 304, headers: Object.freeze(cached), body: served.bytes },
  };
}

/**
 * Does If-None-Match name this ETag (RFC 9110 section 13.1.2: a list, `*`, weak comparison)?
 * Not Koa's ctx.fresh: it answers stale to any request with Cache-Control: no-cache, which
 * fetch() adds to every conditional request, so no fetch-based tlog client would ever get a 304.
 */
export function holdsEtag(if_none_match: string, etag: string): boolean {
  if (if_none_match === '') return false;
  if (if_none_match.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return if_none_match.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/** A proof for given sizes is the same forever (the log only grows): cached like a full tile. */
function immutableJson(ctx: Context, body: object): void {
  ctx.set('Cache-Control', IMMUTABLE);
  ctx.body = body;
}

function atMostCommitted(log: LogView, name: string, size: number): void {
  const committed = log.size();
  if (size > committed)
    throw outOfRange(
      name,
      size,
      'less_than_equal',
      committed,
      `must be at most the log's committed size (${committed})`,
    );
}

function outOfRange(name: string, input: number, type: string, limit: number, msg: string): ValidationError {
  return new ValidationError([{ loc: ['query', name], msg, type, input, ctx: { limit } }]);
}
