import { percentile } from './measure.js';
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import canonicalizeJson from 'canonicalize';

/**
 * The signed-acts load generator, run as its own process: `concurrency` agents, each on
 * its own keep-alive connection, send signed acts again and again for `seconds`. With
 * nonce mode `fetch` each act first asks GET /api/v1/nonce; with `handover` it signs
 * with the X-Next-Nonce of the previous answer (the first act of each agent fetches).
 * Each agent moves (east, then back west), votes and digs where it stands, in turn.
 * Prints one JSON line: acts/s, latency percentiles (nonce fetch included), answers
 * by act and status, generator CPU.
 */
interface AgentSpec {
  agent_id: string;
  jwk: { kty: string; crv: string; x: string; d: string };
}

const [url, agents_file, seconds_text, concurrency_text, motion_id, nonce_mode = 'fetch'] = process.argv.slice(2);
const agents = (JSON.parse(readFileSync(agents_file!, 'utf8')) as AgentSpec[]).map((spec) => ({
  ...spec,
  key: createPrivateKey({ key: spec.jwk, format: 'jwk' }) as KeyObject,
}));
const concurrency = Math.min(Number(concurrency_text ?? 64), agents.length);
const deadline = Date.now() + Number(seconds_text ?? 5) * 1000;
const http_agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url!);
const latencies: number[] = [];
const statuses: Record<string, number> = {};

function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string; next_nonce: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        agent: http_agent,
        headers: body
          ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
          : headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, text, next_nonce: res.headers['x-next-nonce'] as string | undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Position {
  x: number;
  y: number;
}

/** Where each agent stands, so it can dig the top of its own column; the bare server has no world, and any cell will do there. */
async function positions(): Promise<Map<string, Position>> {
  const { status, text } = await call('GET', '/api/v1/world/agents', {});
  if (status !== 200) return new Map();
  return new Map(
    (JSON.parse(text) as { agents: (Position & { agent_id: string })[] }).agents.map(({ agent_id, x, y }) => [
      agent_id,
      { x, y },
    ]),
  );
}

/** One round of an agent's acts: a step east or back west, a vote (aye and nay in turn), a dig where it stands. */
function actOf(round: number, position: Position): { act: string; payload: Record<string, unknown> } {
  const steps = motion_id ? ['world_move', 'vote_cast', 'world_dig'] : ['world_move', 'world_dig'];
  const act = steps[round % steps.length]!;
  const turn = Math.floor(round / steps.length);
  if (act === 'world_move') return { act, payload: { path: [turn % 2 === 0 ? 'e' : 'w'] } };
  if (act === 'vote_cast') return { act, payload: { motion_id, choice: turn % 2 === 0 ? 'aye' : 'nay' } };
  return { act, payload: { x: position.x, y: position.y, z: null } };
}

async function worker(index: number, standing: Map<string, Position>): Promise<void> {
  const agent = agents[index]!;
  let position = standing.get(agent.agent_id) ?? { x: 1024, y: 1024 };
  let handed_over: string | undefined;
  for (let round = 0; Date.now() < deadline; round++) {
    const started = performance.now();
    const nonce =
      handed_over ??
      (JSON.parse((await call('GET', `/api/v1/nonce?agent=${agent.agent_id}`, {})).text) as { nonce: string }).nonce;
    const { act, payload } = actOf(round, position);
    const body = canonicalizeJson({ act, challenge_id: null, puzzle_solution: null, payload })!;
    const text_to_sign = [
      'society-sig-v1',
      'POST',
      '/api/v1/act',
      agent.agent_id,
      nonce,
      createHash('sha256').update(body).digest('hex'),
    ].join('\n');
    const signature = sign(null, Buffer.from(text_to_sign), agent.key).toString('base64url');
    const response = await call(
      'POST',
      '/api/v1/act',
      { 'x-agent-id': agent.agent_id, 'x-nonce': nonce, 'x-signature': signature },
      body,
    );
    handed_over = nonce_mode === 'handover' ? response.next_nonce : undefined;
    latencies.push(performance.now() - started);
    const outcome = `${act} ${response.status}`;
    statuses[outcome] = (statuses[outcome] ?? 0) + 1;
    if (act === 'world_move' && response.status === 200)
      position = (JSON.parse(response.text) as { result?: { position?: Position } }).result?.position ?? position;
  }
}

const standing = await positions();
const started = performance.now();
const cpu_before = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i, standing)));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const cpu = process.cpuUsage(cpu_before);
const generator_cpu_us_per_act = (cpu.user + cpu.system) / latencies.length;
console.log(
  JSON.stringify({
    acts: latencies.length,
    generator_cpu_us_per_act,
    acts_per_second: latencies.length / seconds,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    statuses,
  }),
);
http_agent.destroy();
