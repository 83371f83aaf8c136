import type { ChunkCache } from './chunk_cache.js';
import type { FastRead } from './fast_reads.js';
import { bytesAnswerFor, bytesAnswers, routePattern, type BytesAnswers } from './read_mount.js';
import { SERVED_READS } from './served_reads.js';
import { inChunks, type BytesAnswer } from '../engine/index.js';

/** The chunk read as served: its path, its route pattern, its media type. */
const CHUNK_READ = SERVED_READS.find((read) => read.name === 'world_chunk')!;

/** `chunk_x/chunk_y` as plain digits; anything else (signs, escapes, a trailing slash) is Koa's to answer. */
const CHUNK_PATH = /^(\d{1,2})\/(\d{1,2})$/;

/**
 * Chunk reads in front of Koa (api/fast_reads.ts). A client showing the map revalidates
 * the chunks it holds (If-None-Match, mostly answered 304), and per read the chunk route's
 * own work is a version check in the ChunkCache. A chunk inside the world gets the route's
 * answer (bytesAnswers, kept per cached chunk version so a read makes no headers); a path
 * outside the world or not in digits is left to Koa's 404 or 422.
 */
export function chunkFastRead(chunks: Pick<ChunkCache, 'get'>): FastRead<BytesAnswer> {
  const prefix = CHUNK_READ.path.slice(0, CHUNK_READ.path.indexOf('{'));
  if (CHUNK_READ.response.kind !== 'bytes') throw new Error('the chunk read answers bytes');
  const { media_type } = CHUNK_READ.response;
  // ChunkCache.get returns one object per chunk version: its answers live as long as it does.
  const answers = new WeakMap<BytesAnswer, BytesAnswers>();
  return {
    route: routePattern(CHUNK_READ.path),
    prefix,
    find: (path) => {
      const match = CHUNK_PATH.exec(path.slice(prefix.length));
      if (!match) return undefined;
      const [chunk_x, chunk_y] = [Number(match[1]), Number(match[2])];
      // Outside the world the read's view refuses (404 OUT_OF_BOUNDS): Koa says so.
      return inChunks(chunk_x, chunk_y) ? chunks.get(chunk_x, chunk_y) : undefined;
    },
    answer: (chunk, if_none_match) => {
      let kept = answers.get(chunk);
      if (!kept) {
        kept = bytesAnswers(media_type, chunk);
        answers.set(chunk, kept);
      }
      return bytesAnswerFor(kept, if_none_match);
    },
  };
}
