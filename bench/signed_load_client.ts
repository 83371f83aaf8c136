import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import canonicalizeJson from 'canonicalize';

/**
 * The signed-acts load generator, run as its own process: `concurrency` agents, each on
 * its own keep-alive connection, send signed acts again and again for `seconds`. With
 * nonce mode `fetch` each act first asks GET /api/v1/nonce; with `handover` it signs
 * with the X-Next-Nonce of the previous answer (the first act of each agent fetches).
 * Acts alternate world_move (east, then back west) and vote_cast. Prints one JSON
 * line: acts/s, latency percentiles (nonce fetch included), statuses, generator CPU.
 */
interface AgentSpec {
  agent_id: string;
  jwk: { kty: string; crv: string; x: string; d: string };
}

const [url, agents_file, seconds_text, concurrency_text, motion_id, nonce_mode = 'fetch'] = process.argv.slice(2);
const agents = (JSON.parse(readFileSync(agents_file!, 'utf8')) as AgentSpec[]).map((spec) => ({ ...spec, key: createPrivateKey({ key: spec.jwk, format: 'jwk' }) as KeyObject }));
const concurrency = Math.min(Number(concurrency_text ?? 64), agents.length);
const deadline = Date.now() + Number(seconds_text ?? 5) * 1000;
const http_agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url!);
const latencies: number[] = [];
const statuses: Record<number, number> = {};

function call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; next_nonce: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method, path, agent: http_agent, headers: body ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text, next_nonce: res.headers['x-next-nonce'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function worker(index: number): Promise<void> {
  const agent = agents[index]!;
  let east = true;
  let handed_over: string | undefined;
  for (let round = 0; Date.now() < deadline; round++) {
    const started = performance.now();
    const nonce = handed_over ?? (JSON.parse((await call('GET', `/api/v1/nonce?agent=${agent.agent_id}`, {})).text) as { nonce: string }).nonce;
    const vote = motion_id && round % 2 === 1;
    const payload = vote ? { motion_id, choice: round % 4 === 1 ? 'aye' : 'nay' } : { path: [east ? 'e' : 'w'] };
    if (!vote) east = !east;
    const body = canonicalizeJson({ act: vote ? 'vote_cast' : 'world_move', challenge_id: null, puzzle_solution: null, payload })!;
    const text_to_sign = ['society-sig-v1', 'POST', '/api/v1/act', agent.agent_id, nonce, createHash('sha256').update(body).digest('hex')].join('\n');
    const signature = sign(null, Buffer.from(text_to_sign), agent.key).toString('base64url');
    const response = await call('POST', '/api/v1/act', { 'x-agent-id': agent.agent_id, 'x-nonce': nonce, 'x-signature': signature }, body);
    handed_over = nonce_mode === 'handover' ? response.next_nonce : undefined;
    latencies.push(performance.now() - started);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
}

const started = performance.now();
const cpu_before = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
const cpu = process.cpuUsage(cpu_before);
const generator_cpu_us_per_act = (cpu.user + cpu.system) / latencies.length;
console.log(JSON.stringify({ acts: latencies.length, generator_cpu_us_per_act, acts_per_second: latencies.length / seconds, p50_ms: percentile(50), p99_ms: percentile(99), statuses }));
http_agent.destroy();
