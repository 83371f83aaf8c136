import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { signText, type AgentKey } from '../../client/keys.js';
import {
  HEADER_AGENT_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from '../../client/protocol.js';
import { checkWatchedAnswer } from './contract.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * HTTP from a chosen loopback address (127.0.0.0/8 is all local on Linux), over one
 * kept-alive connection per client, so a test can be several clients as the server's
 * per-address limits see them.
 */
export class LoopbackClient {
  private readonly agent: Agent;

  constructor(
    private readonly base_url: string,
    readonly local_address: string,
    connections = 1,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress: local_address });
  }

  send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const outgoing = request(this.base_url + path, { method, headers, agent: this.agent }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // keep the text
          }
          try {
            // A test society's answers are held to the OpenAPI document, headers included, as fetch's are (contract_setup.ts).
            const content_type = incoming.headers['content-type'] ?? null;
            const url = new URL(this.base_url + path);
            checkWatchedAnswer(url, method, incoming.statusCode!, content_type, text, incoming.headers);
          } catch (error) {
            return reject(error);
          }
          resolve({ status: incoming.statusCode!, headers: incoming.headers, body: parsed });
        });
        incoming.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  async nonce(agent_id: string): Promise<string> {
    const answer = await this.send('GET', `/api/v1/nonce?agent=${agent_id}`);
    if (answer.status !== 200) throw new Error(`nonce refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.nonce as string;
  }

  /** One POST signed by key with the given nonce, sent exactly as signed. */
  async signed(path: string, body: unknown, key: AgentKey, nonce: string): Promise<Answer> {
    const sent = canonicalBody(body);
    const text = signingString({
      method: 'POST',
      path,
      agent_id: key.agent_id,
      nonce,
      body_sha256: await sha256Hex(sent),
    });
    const headers = {
      'content-type': 'application/json',
      [HEADER_AGENT_ID]: key.agent_id,
      [HEADER_NONCE]: nonce,
      [HEADER_SIGNATURE]: await signText(key, text),
    };
    return this.send('POST', path, headers, sent);
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * An attacker's flood: `count` GETs from one loopback address over one connection,
 * pipelined `depth` at a time (HTTP/1.1), as fast as the server answers. Answers are
 * counted by status; nothing else is kept.
 */
export function pipelinedGets(
  base_url: string,
  local_address: string,
  pathOf: (index: number) => string,
  count: number,
  depth = 64,
): Promise<Map<number, number>> {
  const { hostname, port } = new URL(base_url);
  const statuses = new Map<number, number>();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: local_address });
    let sent = 0;
    let in_flight = 0;
    // A status line can straddle two chunks: the unread end of the last one is kept.
    let carried = '';
    const sendMore = () => {
      const batch = Math.min(depth, count - sent);
      if (batch === 0) {
        socket.end();
        return resolve(statuses);
      }
      let text = '';
      for (let i = 0; i < batch; i++) text += `GET ${pathOf(sent + i)} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
      sent += batch;
      in_flight += batch;
      socket.write(text);
    };
    socket.setEncoding('latin1');
    socket.on('connect', sendMore);
    socket.on('data', (chunk: string) => {
      const text = carried + chunk;
      const status_line = /HTTP\/1\.1 (\d{3}) /g;
      let read_to = 0;
      for (let found = status_line.exec(text); found; found = status_line.exec(text)) {
        const status = Number(found[1]);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        in_flight--;
        read_to = status_line.lastIndex;
      }
      carried = text.slice(Math.max(read_to, text.length - 16));
      if (in_flight === 0) sendMore();
    });
    socket.on('error', reject);
  });
}
