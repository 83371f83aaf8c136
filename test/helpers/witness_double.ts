import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SIGNATURE_TYPE_COSIGNATURE_V1 } from '../../client/tlog/cosignature.js';
import { formatVerifierKey, generateSignerKey, noteSigner, parseVerifierKey } from '../../client/tlog/note_keys.js';
import { witnessServer } from '../../client/witness/server.js';
import { WitnessStateFile } from '../../client/witness/state_file.js';
import { Witness } from '../../client/witness/witness.js';
import { tempDir } from './society.js';

/** A plain HTTP server on a free loopback port, and how to close it with its open connections. */
export interface Listening {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A real tlog witness (client/witness/) in process, whose behaviour a test can swap for a
 * hostile one at any time: `behave(handler)`, or `behave('honest')`. Its key is made at
 * once, for the service's witness list; it follows a log once told its key (`follow`),
 * and answers 503 until then.
 */
export interface WitnessDouble extends Listening {
  name: string;
  /** The witness's cosignature vkey, for the service's witness list. */
  vkey: string;
  /** When (Date.now()) the honest witness answered 200: each a checkpoint cosigned. */
  cosigned_at_ms: number[];
  /** Makes the honest witness a witness of this log, and behaves honestly. */
  follow(log_vkey: string): Promise<void>;
  behave(handler: RequestListener | 'honest'): void;
}

export async function startWitnessDouble(name: string): Promise<WitnessDouble> {
  const key = await generateSignerKey(name, SIGNATURE_TYPE_COSIGNATURE_V1);
  const cosigned_at_ms: number[] = [];
  let real: RequestListener = (_request, response) => response.writeHead(503).end('not following a log yet\n');
  const honest: RequestListener = (request, response) => {
    response.once('finish', () => {
      if (response.statusCode === 200) cosigned_at_ms.push(Date.now());
    });
    real(request, response);
  };
  let current = honest;
  const listening = await listen((request, response) => current(request, response));
  return Object.assign(listening, {
    name,
    vkey: formatVerifierKey(key),
    cosigned_at_ms,
    async follow(log_vkey: string) {
      const witness = new Witness(
        noteSigner(key),
        [parseVerifierKey(log_vkey)],
        await WitnessStateFile.load(join(tempDir('tessera-witness-double-'), 'state.json')),
      );
      real = witnessServer(witness).listeners('request')[0] as RequestListener;
      current = honest;
    },
    behave(handler: RequestListener | 'honest') {
      current = handler === 'honest' ? honest : handler;
    },
  });
}
