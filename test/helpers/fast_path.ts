import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestSociety } from './society.js';

/**
 * What the tests of the fast path in front of Koa (api/fast_reads.ts: log tiles, chunks)
 * share: a listener of each path alone, and an answer in a form two paths can be held equal by.
 */

/** A listener of its own on an ephemeral port, closed by the returned function. */
export async function serve(listener: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The status the fast path alone answers with what it declines, so a test sees it decline. */
export const DECLINED = 599;

/** The fast path alone: what it declines is answered DECLINED. */
export const fastOnly = (paths: TestSociety['paths']): RequestListener => {
  return (req, res) => {
    if (paths.fast(req, res)) return;
    res.statusCode = DECLINED;
    res.end();
  };
};

/** Headers of the server rather than of the answer: the time, and the test listeners' own keep-alive timeout. */
const SERVER_HEADERS = new Set(['date', 'keep-alive']);

/** What is left of the read allowance moves with every read: both paths must say it, each with its own count. */
const ALLOWANCE_LEFT = new Set(['ratelimit-remaining', 'ratelimit-reset']);

/** Status, headers (but the server's) and body bytes, as compared between the two paths. */
export async function answerOf(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const headers = [...response.headers]
    .filter(([name]) => !SERVER_HEADERS.has(name))
    .map(([name, value]): [string, string | boolean] => [name, ALLOWANCE_LEFT.has(name) ? /^\d+$/.test(value) : value]);
  return { status: response.status, headers, bytes: Buffer.from(await response.arrayBuffer()).toString('base64') };
}
