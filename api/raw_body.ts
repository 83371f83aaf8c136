import type { Context } from 'koa';

/**
 * The request body as raw bytes, for the routes that must see them before any parser
 * (the processor's webhook verifies a signature over them; observer recovery answers
 * every bad body the same way). Undefined once the body passes bytes_max.
 */
export async function readRawBody(ctx: Context, bytes_max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > bytes_max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
