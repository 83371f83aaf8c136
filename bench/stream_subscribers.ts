import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { percentile } from './measure.js';

/**
 * The subscribers of the stream benchmark, in their own process: `following_all` streams
 * of every entry (pages, monitors) and the rest each following one agent of the load
 * (an agent watching its own events), spread over the agents in turn. Each delivery's
 * latency is measured from the entry's `at` (the engine time its tick began, this same
 * machine's clock) to its arrival: apply, commit, publish and the wire. Prints
 * {"ready": n} once every stream is open, and its figures on SIGTERM.
 */
const [url, agents_file, total_text, following_all_text] = process.argv.slice(2);
const total = Number(total_text);
const following_all = Number(following_all_text);
const agents = (JSON.parse(readFileSync(agents_file!, 'utf8')) as { agent_id: string }[]).map((a) => a.agent_id);

const latencies_ms: number[] = [];
let deliveries = 0;
let dropped = 0;
let open = 0;
const AT = /"at":"([^"]+)"/;

function subscribe(path: string): void {
  const req = request(`${url}${path}`, { agent: false }, (res) => {
    if (res.statusCode !== 200) throw new Error(`stream refused: ${res.statusCode}`);
    if (++open === total) console.log(JSON.stringify({ ready: open }));
    let pending = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const now_ms = Date.now();
      pending += chunk;
      let end = pending.indexOf('\n\n');
      while (end >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
        if (event.startsWith('event: dropped')) dropped++;
        const at = AT.exec(event);
        if (!at) continue;
        deliveries++;
        // A sample of at most a million keeps memory flat on a long run.
        if (latencies_ms.length < 1_000_000) latencies_ms.push(now_ms - Date.parse(at[1]!));
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
}

for (let i = 0; i < total; i++) {
  subscribe(i < following_all ? '/api/v1/events' : `/api/v1/events?actor=${agents[i % agents.length]}`);
}

process.on('SIGTERM', () => {
  latencies_ms.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      deliveries,
      dropped,
      p50_ms: percentile(latencies_ms, 0.5),
      p99_ms: percentile(latencies_ms, 0.99),
    }),
  );
  process.exit(0);
});
