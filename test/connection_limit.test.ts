import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';

/** Opens a TCP connection from a given local address; resolves once connected. */
function open(url: string, local_address: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: local_address }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Whether the server still keeps a connection: it answers a request on it, or closes it. */
function answers(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => {
    socket.once('data', () => resolve(true));
    socket.once('close', () => resolve(false));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', () => undefined);
  });
}

describe('connections per client address', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({ config: { connection_limits: { connections_per_address_max: 3 } } });
  });
  afterAll(() => society.destroy());

  it('are capped: past the cap a connection is closed unread, other addresses are served, a closed one frees its place', async () => {
    const held = await Promise.all([1, 2, 3].map(() => open(society.url, '127.0.0.7')));
    const fourth = await open(society.url, '127.0.0.7');
    expect(await answers(fourth)).toBe(false);
    const elsewhere = await open(society.url, '127.0.0.8');
    expect(await answers(elsewhere)).toBe(true);
    expect(await answers(held[0]!)).toBe(true);
    held[1]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await open(society.url, '127.0.0.7');
    expect(await answers(again)).toBe(true);
    for (const socket of [...held, elsewhere, again]) socket.destroy();
  });
});
