import type { Context } from 'koa';
import { RefusalError } from './refusal_error.js';

/**
 * Bodies are taken as sent, never inflated: a decoder fed corrupt bytes fails in ways
 * no refusal code describes, an inflated body can be far larger than the limit its
 * compressed form passed, and a webhook's signature covers the bytes on the wire.
 * `identity` (alone or listed) is no encoding at all and is accepted.
 */
export function refuseEncodedBody(ctx: Context): void {
  const header = ctx.get('content-encoding');
  if (header === '') return;
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase());
  if (codings.every((coding) => coding === 'identity' || coding === '')) return;
  throw RefusalError.of(
    'UNSUPPORTED_MEDIA_TYPE',
    'Send the body uncompressed: Content-Encoding must be absent or identity.',
  );
}
