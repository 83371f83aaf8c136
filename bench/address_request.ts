import { type Agent, request } from 'node:http';

/** 16 ledger_read calls of 1,000 entries each: the costliest thing one POST /mcp can ask. */
export const HEAVY_MCP_BATCH = JSON.stringify(
  Array.from({ length: 16 }, (_, index) => ({
    jsonrpc: '2.0',
    id: index + 1,
    method: 'tools/call',
    params: { name: 'ledger_read', arguments: { from: 1 + index * 1000, limit: 1000 } },
  })),
);

export interface Answered {
  status: number;
  retry_after_s: number;
  ms: number;
}

/**
 * One request sent from a given local address (127.x.y.z: a client of its own to the
 * per-address limits) on a keep-alive agent: a GET, or a JSON POST when a body is given.
 * Its status, Retry-After and how long it took.
 */
export function sendFrom(
  url: string,
  path: string,
  agent: Agent,
  local_address: string,
  body?: string,
): Promise<Answered> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = body ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {};
    const req = request(
      `${url}${path}`,
      { method: body ? 'POST' : 'GET', headers, agent, localAddress: local_address },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retry_after_s: Number(res.headers['retry-after'] ?? 0),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
