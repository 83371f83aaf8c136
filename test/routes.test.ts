import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsMiddleware } from '../api/errors_middleware.js';
import { Routes } from '../api/routes.js';

describe('the routes', () => {
  let server: Server;
  let url = '';
  const parsed: string[] = [];

  beforeAll(async () => {
    const routes = new Routes(async (ctx, next) => {
      parsed.push(ctx.path);
      ctx.request.body = { parsed: true };
      await next();
    });
    routes.get('/things/:name', (ctx, next) =>
      ctx.params.name!.endsWith('.md') ? (ctx.body = `# ${ctx.params.name}`) : next(),
    );
    routes.get('/things/:name', (ctx, next) =>
      ctx.params.name === 'known' ? (ctx.body = { name: ctx.params.name }) : next(),
    );
    routes.post('/json', (ctx) => (ctx.body = { body: ctx.request.body }));
    routes.postRaw('/raw', (ctx) => (ctx.body = { body: ctx.request.body ?? null }));
    expect(() => routes.postRaw('/json', () => undefined)).toThrow('both with and without a parsed body');
    const app = new Koa();
    app.use(errorsMiddleware(() => undefined));
    app.use(routes.middleware());
    expect(() => routes.get('/late', () => undefined)).toThrow('sealed');
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('runs the handlers of one pattern in order, each passing to the next, and answers 404 when the last passes too', async () => {
    expect(await (await fetch(`${url}/things/notes.md`)).text()).toBe('# notes.md');
    expect(await (await fetch(`${url}/things/known`)).json()).toEqual({ name: 'known' });
    const unknown = await fetch(`${url}/things/unknown`);
    expect([unknown.status, ((await unknown.json()) as { error: string }).error]).toEqual([404, 'NOT_FOUND']);
  });

  it('parses bodies for the POST routes that take them, and only for those', async () => {
    parsed.length = 0;
    expect(await (await fetch(`${url}/json`, { method: 'POST' })).json()).toEqual({ body: { parsed: true } });
    expect(await (await fetch(`${url}/raw`, { method: 'POST' })).json()).toEqual({ body: null });
    await fetch(`${url}/things/known`);
    expect(parsed).toEqual(['/json']);
  });

  it('answers 405 with Allow for a known path and another method, and 404 for an unknown path', async () => {
    const wrong = await fetch(`${url}/json`, { method: 'PUT' });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'POST']);
    const missing = await fetch(`${url}/nowhere`, { method: 'POST' });
    expect(missing.status).toBe(404);
  });
});
