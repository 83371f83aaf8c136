import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Witness, WitnessAnswer } from './witness.js';

/** A checkpoint with 100 signatures and 63 proof lines is about 20 KiB: anything far beyond is not a request. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The witness's HTTP face: `POST /add-checkpoint` (submission) and
 * `GET /<sha256(origin) hex>/checkpoint` (monitoring), one prefix for both.
 * Plain node:http: two routes need no framework.
 */
export function witnessServer(witness: Witness): Server {
  return createServer((request, response) => {
    handle(witness, request, response).catch((error: unknown) => {
      // Only the disk or a bug gets here: the checkpoint was not recorded, so it was not cosigned.
      send(response, {
        status: 500,
        content_type: 'text/plain; charset=utf-8',
        body: `not recorded: ${String(error)}\n`,
      });
    });
  });
}

async function handle(witness: Witness, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/add-checkpoint') {
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      return send(response, plain(405, 'add-checkpoint takes a POST'));
    }
    const body = await readBody(request);
    if (!body) {
      response.setHeader('Connection', 'close');
      return send(response, plain(413, `the request is larger than ${MAX_REQUEST_BYTES} bytes`));
    }
    return send(response, await witness.addCheckpoint(body));
  }
  const monitored = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path ?? '');
  if (monitored && (request.method === 'GET' || request.method === 'HEAD')) {
    const note = witness.cosignedCheckpoint(monitored[1]!);
    return send(response, note ? plain(200, note) : plain(404, 'no checkpoint cosigned for this log'));
  }
  send(response, plain(404, 'not found: POST /add-checkpoint, GET /<sha256 of the origin, hex>/checkpoint'));
}

/** The body, or undefined once it passes the limit (the rest is not read). */
async function readBody(request: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function plain(status: number, body: string): WitnessAnswer {
  return { status, content_type: 'text/plain; charset=utf-8', body: body.endsWith('\n') ? body : `${body}\n` };
}

function send(response: ServerResponse, answer: WitnessAnswer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(answer.status, { 'Content-Type': answer.content_type, 'Cache-Control': 'no-store' });
  response.end(answer.body);
}
