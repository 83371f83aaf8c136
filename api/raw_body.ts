import type { Context } from 'koa';
import { refuseEncodedBody } from './body_encoding.js';
import { ValidationError } from './refusal_error.js';

/**
 * The request body as raw bytes, for the routes that must see them before any parser
 * (the processor's webhook verifies a signature over them; observer recovery answers
 * every bad body the same way). Undefined once the body passes bytes_max; an encoded
 * body is refused (415) before a byte is read. A client that hangs up mid-body failed,
 * not the service: that is a 422 like the JSON parser's, never a reported bug.
 */
export async function readRawBody(ctx: Context, bytes_max: number): Promise<Buffer | undefined> {
  refuseEncodedBody(ctx);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > bytes_max) return undefined;
      chunks.push(chunk as Buffer);
    }
  } catch {
    throw new ValidationError([
      { loc: ['body'], msg: 'The connection closed before the whole body arrived', type: 'body_incomplete' },
    ]);
  }
  return Buffer.concat(chunks);
}
