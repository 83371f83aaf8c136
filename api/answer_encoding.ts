import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import type { AddressLimit } from './address_limit.js';
import { holdsEtag } from './log/log_routes.js';
import { readsCost, type ReadWeights } from './read_cost.js';
import { isLimitedRead } from './read_limiter.js';

/**
 * Answers compressed when the client asks (Accept-Encoding: br or gzip), on both paths:
 * the fast path in front of Koa (fast_reads.ts) and Koa (compressAnswers below). Both
 * choose the coding and encode with the functions here, so an answer is the same bytes
 * and headers whichever path gives it.
 *
 * What is compressed: text (HTML, JSON, Markdown, plain text, XML and RSS, CSS, scripts)
 * of at least COMPRESS_BYTES_MIN bytes; never an event stream (each event must reach the
 * reader as it happens, and a compressor holds bytes back), never a binary but one: hash
 * tiles are random (gzip makes them larger), and chunk binaries are run-length encoded
 * and small (33 bytes for a plain one), and their ETags are announced as they are by
 * GET /api/v1/world/changes, which an encoded variant's ETag would not match. The one is
 * the entry bundle (application/octet-stream too, but JSON entries with length prefixes,
 * a third of their size gzipped), encoded when measurement says so; its encoded variants
 * are kept with its bytes (keptEncoding), so a bundle is compressed once.
 */

export type Coding = 'br' | 'gzip';

/** Below this an answer is sent as it is: the coding's own overhead would eat most of the gain. */
export const COMPRESS_BYTES_MIN = 1024;
/** zlib's default level: most of the gain of 9 at a fraction of the CPU, which readers are charged. */
export const GZIP_LEVEL = 6;
/** Brotli at 4 beats gzip -6 in size and speed on JSON and HTML; 11, its default, is for precompressed files. */
export const BROTLI_QUALITY = 4;
/** A binary body is sent encoded only when that saves at least this share of its bytes. */
const MEASURED_SAVING_MIN = 0.1;

/** The header every answer that may be encoded carries, encoded or not (RFC 9110 section 12.5.5). */
export const VARY_ACCEPT_ENCODING = 'Accept-Encoding';

/**
 * The coding to answer with, given Accept-Encoding: br or gzip, whichever has the higher
 * quality value (a tie goes to br, smaller for the same CPU), or undefined for identity
 * (no header, `identity` only, or q=0 for both). `*` stands for any coding not named.
 */
export function chosenCoding(accept_encoding: string | undefined): Coding | undefined {
  if (!accept_encoding) return undefined;
  const known = chosen.get(accept_encoding);
  if (known !== undefined) return known || undefined;
  const quality: Record<string, number> = Object.create(null);
  for (const part of accept_encoding.split(',')) {
    const [name = '', ...params] = part.split(';');
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    const coding = name.trim().toLowerCase();
    if (coding !== '') quality[coding] = Math.max(quality[coding] ?? 0, q);
  }
  const star = quality['*'] ?? 0;
  const br = quality.br ?? star;
  const gzip = quality.gzip ?? quality['x-gzip'] ?? star;
  const coding: Coding | '' = br <= 0 && gzip <= 0 ? '' : br >= gzip ? 'br' : 'gzip';
  // Clients send a few distinct headers: the parse is kept per header text, within a bound.
  if (chosen.size >= CHOSEN_KEPT_MAX) chosen.clear();
  chosen.set(accept_encoding, coding);
  return coding || undefined;
}
const chosen = new Map<string, Coding | ''>();
const CHOSEN_KEPT_MAX = 256;

/** How answers are encoded: by their size (text), by measurement (entry bundles), or never. */
export type EncodingPolicy = 'text' | 'measured' | 'never';

/** The only binaries encoded: entry bundles, JSON text inside (the tile route's path for them). */
const ENTRY_BUNDLES_AT = '/log/tile/entries/';

/** The policy for an answer's Content-Type (parameters ignored) and the path it answers. */
export function encodingPolicy(content_type: string, path: string): EncodingPolicy {
  const type = content_type.split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return 'never';
  if (type.startsWith('text/')) return 'text';
  if (
    type === 'application/json' ||
    type === 'application/xml' ||
    type === 'application/javascript' ||
    type === 'image/svg+xml' ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  )
    return 'text';
  if (type === 'application/octet-stream' && path.startsWith(ENTRY_BUNDLES_AT)) return 'measured';
  return 'never';
}

/** The body in a coding, as the client's decoder reads it. */
export function encode(body: Uint8Array, coding: Coding): Buffer {
  return coding === 'br'
    ? brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzipSync(body, { level: GZIP_LEVEL });
}

/** A body's encoded variants, made on first ask; null where encoding it does not pay. */
interface Variants {
  br?: Buffer | null;
  gzip?: Buffer | null;
}
const variants = new WeakMap<object, Variants>();

/**
 * What a body's variants are kept under: its ArrayBuffer when the view covers all of it
 * (a chunk's bytes, wrapped in a new Buffer per answer by bytesAnswers), else the view.
 */
const keyOf = (body: Uint8Array): object =>
  body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body.buffer : body;

/**
 * The body in a coding, kept with the body object (a tile, a ledger page, a kept page's
 * bytes), so a kept answer is compressed once whoever asks again; null when encoding it
 * is not worth it (a binary that saves less than MEASURED_SAVING_MIN; text is always
 * encoded). `cpu_ms` is what making it cost now (0 when it was kept).
 */
export function keptEncoding(
  body: Uint8Array,
  coding: Coding,
  policy: Exclude<EncodingPolicy, 'never'>,
): { bytes: Buffer | null; cpu_ms: number } {
  const key = keyOf(body);
  let kept = variants.get(key);
  const known = kept?.[coding];
  if (known !== undefined) return { bytes: known, cpu_ms: 0 };
  // Measured here, not with beginCpuMeasure: the encoding is synchronous, so the process's
  // CPU across it is its own, and a measure begun here would void the requests in flight.
  const started = process.cpuUsage();
  const encoded = encode(body, coding);
  const saving = policy === 'measured' ? MEASURED_SAVING_MIN : 0;
  // Text over the threshold is sent encoded once selected (its ETag says so), whatever it saves.
  const bytes = policy === 'text' || encoded.byteLength < body.byteLength * (1 - saving) ? encoded : null;
  if (!kept) {
    kept = {};
    variants.set(key, kept);
  }
  kept[coding] = bytes;
  const { user, system } = process.cpuUsage(started);
  return { bytes, cpu_ms: (user + system) / 1000 };
}

/** An ETag of an encoded variant: the identity's with the coding inside the quotes (strong validators must differ per coding). */
export function encodedEtag(etag: string, coding: Coding): string {
  const weak = etag.startsWith('W/');
  const opaque = weak ? etag.slice(2) : etag;
  if (!opaque.endsWith('"')) return etag;
  return `${weak ? 'W/' : ''}${opaque.slice(0, -1)}-${coding}"`;
}

/** Which representation of a 200 answer a request gets, decided on both paths alike. */
export interface Selected {
  /** Whether the answer depends on Accept-Encoding (Vary: Accept-Encoding). */
  varies: boolean;
  /** The coding of what is sent; undefined for the identity. */
  coding?: Coding | undefined;
  /** The sent representation's ETag (encodedEtag of the identity's), when the answer has one. */
  etag?: string | undefined;
  /** If-None-Match holds that ETag: 304 (RFC 9110 section 13.1.2, weak comparison, a list or `*`). */
  not_modified: boolean;
  /** CPU spent deciding (measuring a binary's encoding the first time), in ms. */
  cpu_ms: number;
}

/**
 * The representation a request gets of a 200 answer with this body, type and ETag: encoded
 * when the client asks and the body is worth encoding, and 304 when its If-None-Match holds
 * the ETag of that representation. A text body's encoding is not made here (only its
 * size decides): bodyOf makes it once the read is granted. A binary's is, kept with it.
 */
export function selectRepresentation(
  path: string,
  body: Uint8Array | string,
  content_type: string,
  etag: string | undefined,
  accept_encoding: string | undefined,
  if_none_match: string,
): Selected {
  const policy = encodingPolicy(content_type, path);
  let varies = policy !== 'never' && atLeastBytes(body, COMPRESS_BYTES_MIN);
  let coding = varies ? chosenCoding(accept_encoding) : undefined;
  let cpu_ms = 0;
  if (varies && policy === 'measured' && typeof body !== 'string') {
    // A binary varies only if encoding it pays (measured once with gzip), and is sent in the asked coding only if that does.
    const gzip = keptEncoding(body, 'gzip', 'measured');
    cpu_ms += gzip.cpu_ms;
    varies = gzip.bytes !== null;
    if (varies && coding) {
      const asked = coding === 'gzip' ? gzip : keptEncoding(body, coding, 'measured');
      cpu_ms += asked === gzip ? 0 : asked.cpu_ms;
      if (asked.bytes === null) coding = undefined;
    } else coding = undefined;
  }
  const sent_etag = etag !== undefined && coding ? encodedEtag(etag, coding) : etag;
  const not_modified = sent_etag !== undefined && holdsEtag(if_none_match, sent_etag);
  return { varies, coding, etag: sent_etag, not_modified, cpu_ms };
}

/** Whether a body is at least `bytes` long in UTF-8, without encoding a string (a UTF-8 byte per UTF-16 unit at least). */
function atLeastBytes(body: Uint8Array | string, bytes: number): boolean {
  if (typeof body !== 'string') return body.byteLength >= bytes;
  return body.length >= bytes || Buffer.byteLength(body) >= bytes;
}

/** The bytes sent for a selected representation, and the CPU making them took now (0 when kept). */
export function bodyOf<Body extends Uint8Array | string>(
  body: Body,
  selected: Selected,
): { bytes: Body | Buffer; cpu_ms: number } {
  if (!selected.coding) return { bytes: body, cpu_ms: 0 };
  if (typeof body === 'string') {
    // A text made for this request alone (Koa's): encoded now, nothing to keep it with.
    const started = process.cpuUsage();
    const bytes = encode(Buffer.from(body), selected.coding);
    const { user, system } = process.cpuUsage(started);
    return { bytes, cpu_ms: (user + system) / 1000 };
  }
  // A binary's was made and kept when it was selected; a text's is made once per body object.
  const { bytes, cpu_ms } = keptEncoding(body, selected.coding, 'text');
  return { bytes: bytes ?? body, cpu_ms };
}

/**
 * What encoding an answer costs its reader beyond what the read was charged without it,
 * in reads: the read's cost (read_cost.ts) with the encoding's CPU counted, less its cost
 * without. A read of `identity_bytes` already buys that many bytes' worth of CPU
 * (cpu_ms_per_read per bytes_per_read), which covers the encoding of most answers (gzip
 * -6 and brotli 4 encode 64 KiB of JSON in about 1 ms, where a read buys 2 ms by default);
 * only an encoding that takes more than the read bought is charged. The read's own CPU is
 * not counted with it (Koa's read limiter measured it apart), so the charge is at most
 * one read short.
 */
export function encodingCharge(weights: ReadWeights, cpu_ms: number, identity_bytes: number): number {
  if (cpu_ms <= 0) return 0;
  return readsCost(weights, cpu_ms, identity_bytes) - readsCost(weights, 0, identity_bytes);
}

/**
 * Koa answers compressed when asked: registered before (outside) the read limiter, so the
 * limiter measures the answer's CPU and its bytes as identity (what every client is
 * charged the same for), and the compression's own CPU, measured here, is charged as
 * encodingCharge says. Compresses a buffered body only (a
 * string, a Buffer, JSON); a stream (an event stream, whose route writes itself anyway)
 * is left alone. HEAD gets GET's headers, as Koa answers it.
 *
 * Revalidation is decided here, for the representation sent: a route never sees
 * If-None-Match, answers 200 with its ETag, and the answer becomes 304 when the request's
 * If-None-Match holds the ETag of what would be sent (the encoded variant's or the
 * identity's), as the fast path decides it.
 */
export function compressAnswers(read_limit: AddressLimit, weights: ReadWeights): Middleware {
  return async (ctx, next) => {
    const if_none_match = ctx.get('If-None-Match');
    if (if_none_match !== '') delete ctx.req.headers['if-none-match'];
    await next();
    if (ctx.status !== 200 || !ctx.body || ctx.response.get('Content-Encoding') || ctx.res.headersSent) return;
    const body: unknown = ctx.body;
    // Not copied to bytes unless encoded: most answers go as they are.
    let text: Uint8Array | string;
    if (typeof body === 'string' || body instanceof Uint8Array) text = body;
    else if (typeof (body as { pipe?: unknown }).pipe === 'function') return;
    else text = JSON.stringify(body);
    const type = String(ctx.response.get('Content-Type'));
    const etag = ctx.response.get('ETag') || undefined;
    const selected = selectRepresentation(ctx.path, text, type, etag, ctx.get('Accept-Encoding'), if_none_match);
    if (selected.varies) ctx.vary(VARY_ACCEPT_ENCODING);
    if (selected.etag !== undefined) ctx.set('ETag', selected.etag);
    let cpu_ms = selected.cpu_ms;
    if (selected.not_modified) {
      // As a route answers 304: its headers but the type, no body.
      ctx.status = 304;
      ctx.body = null;
    } else if (selected.coding) {
      const sent = bodyOf(text, selected);
      cpu_ms += sent.cpu_ms;
      ctx.body = sent.bytes;
      // A Buffer body keeps the type the route set.
      ctx.set('Content-Type', type);
      ctx.set('Content-Encoding', selected.coding);
    }
    // Reads are charged what they cost (read_cost.ts); writes have their own limits.
    if (cpu_ms > 0 && isLimitedRead(ctx.method, ctx.path)) {
      const identity_bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength;
      read_limit.charge(ctx.ip, encodingCharge(weights, cpu_ms, identity_bytes));
    }
  };
}
