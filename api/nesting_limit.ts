import type { Middleware } from 'koa';
import { ValidationError } from './refusal_error.js';

export const body_nesting_depth_max = 16;

/** How deeply arrays and objects nest, counted without recursion so no input can exhaust the stack. */
export function nestingDepth(value: unknown, stop_above: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > stop_above) return deepest;
    for (const inner of Object.values(current)) pending.push([inner, level]);
  }
  return deepest;
}

/** No schema here nests deeper than a few levels; deeper bodies are refused before any schema sees them. */
export function limitBodyNesting(): Middleware {
  return async (ctx, next) => {
    const body: unknown = ctx.request.body;
    if (body !== undefined && nestingDepth(body, body_nesting_depth_max) > body_nesting_depth_max) {
      throw new ValidationError([
        {
          loc: ['body'],
          msg: `JSON nests deeper than ${body_nesting_depth_max} levels`,
          type: 'too_deep',
          ctx: { max_depth: body_nesting_depth_max },
        },
      ]);
    }
    await next();
  };
}
