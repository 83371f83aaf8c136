import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import compose from 'koa-compose';
import { RefusalError } from './refusal_error.js';

declare module 'koa' {
  interface ExtendableContext {
    /** The matched route's path parameters, decoded. */
    params: Record<string, string>;
    /** The matched route's pattern (never the raw URL), for metrics labels. */
    route_pattern?: string;
  }
}

export type RouteHandler = (ctx: ParameterizedContext, next: Next) => unknown;

interface Route {
  pattern: string;
  /** A POST route whose JSON body is parsed before its handlers run. */
  json_body: boolean;
  handlers: RouteHandler[];
  run?: Middleware;
}

const methods_served: HTTPMethod[] = ['GET', 'POST', 'PUT', 'DELETE'];

function notFound(ctx: ParameterizedContext): RefusalError {
  return RefusalError.of('NOT_FOUND', `There is no route ${ctx.method} ${ctx.path}.`);
}

/**
 * The HTTP routes, on find-my-way's radix tree: a lookup costs the same with ten
 * routes or two hundred (the linear matcher it replaced cost more with each route,
 * testing every pattern). A pattern registered twice runs its handlers in order,
 * the first passing to the second with next(). HEAD is answered by the GET route.
 */
export class Routes {
  private readonly tree = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  private readonly by_key = new Map<string, Route>();
  private sealed = false;

  /** `json_body` parses and checks a POST's JSON body; it runs for the POST routes that take one, and only for them. */
  constructor(private readonly json_body: Middleware) {}

  get(path: string, ...handlers: RouteHandler[]): void {
    this.on('GET', path, handlers, false);
  }

  /** A POST route taking a JSON body (parsed into ctx.request.body first). */
  post(path: string, ...handlers: RouteHandler[]): void {
    this.on('POST', path, handlers, true);
  }

  /** A POST route that reads its own raw body (a webhook checks the exact bytes). */
  postRaw(path: string, ...handlers: RouteHandler[]): void {
    this.on('POST', path, handlers, false);
  }

  /** Every route as registered: its method, its pattern, and whether it reads its own raw body. */
  listing(): { method: string; pattern: string; raw_body: boolean }[] {
    return [...this.by_key].map(([key, route]) => ({
      method: key.slice(0, key.indexOf(' ')),
      pattern: route.pattern,
      raw_body: key.startsWith('POST ') && !route.json_body,
    }));
  }

  /** The Koa middleware that dispatches; no route may be added after it is made. */
  middleware(): Middleware {
    this.sealed = true;
    this.tree.compile();
    return (ctx, next) => {
      const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
      const found = methods_served.includes(method as HTTPMethod)
        ? this.tree.find(method as HTTPMethod, ctx.path)
        : null;
      if (!found) return this.unrouted(ctx);
      const route = found.store as Route;
      ctx.params = found.params as Record<string, string>;
      ctx.route_pattern = route.pattern;
      route.run ??=
        route.handlers.length === 1 ? (route.handlers[0] as Middleware) : compose(route.handlers as Middleware[]);
      // A chain whose last handler passes on found nothing to answer with.
      return route.run(ctx, () => Promise.reject(notFound(ctx)));
    };
  }

  private on(method: HTTPMethod, path: string, handlers: RouteHandler[], json_body: boolean): void {
    if (this.sealed) throw new Error(`route ${method} ${path} added after the routes were sealed`);
    // The same pattern twice chains its handlers; the same shape under other parameter names is refused by the tree.
    const key = `${method} ${path}`;
    const existing = this.by_key.get(key);
    if (existing) {
      if (existing.json_body !== json_body)
        throw new Error(`route ${key} registered both with and without a parsed body`);
      existing.handlers.push(...handlers);
      return;
    }
    const route: Route = {
      pattern: path,
      json_body,
      handlers: json_body ? [this.json_body as RouteHandler, ...handlers] : [...handlers],
    };
    this.by_key.set(key, route);
    this.tree.on(method, path, () => undefined, route);
  }

  /** No route for this method: 405 with Allow if another method has one, else 404. */
  private unrouted(ctx: ParameterizedContext): never {
    const allowed = methods_served.filter((method) => this.tree.find(method, ctx.path) !== null);
    if (allowed.length === 0) throw notFound(ctx);
    if (allowed.includes('GET')) allowed.push('HEAD');
    throw new RefusalError(
      {
        ok: false,
        code: 'METHOD_NOT_ALLOWED',
        message: `${ctx.method} is not served at ${ctx.path}; use ${allowed.join(', ')}.`,
      },
      { Allow: allowed.join(', ') },
    );
  }
}
