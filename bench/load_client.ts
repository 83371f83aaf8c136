import { Agent, request } from 'node:http';

/**
 * The load generator, run as its own process so it does not share the server's core:
 * `concurrency` keep-alive connections each sending GET `path` back to back for
 * `seconds`; prints one JSON line with the request rate and the statuses seen.
 */
const [url, path, seconds_text, concurrency_text, etag] = process.argv.slice(2);
const target = new URL(path!, url);
const seconds = Number(seconds_text ?? 3);
const concurrency = Number(concurrency_text ?? 16);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const statuses: Record<number, number> = {};
let done = 0;
const deadline = Date.now() + seconds * 1000;

function one(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(target, { agent, headers: etag ? { 'if-none-match': etag } : {} }, (res) => {
      res.resume();
      res.on('end', () => {
        statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
        resolve();
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    await one();
    done++;
  }
}

const started = Date.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const elapsed = (Date.now() - started) / 1000;
console.log(JSON.stringify({ requests: done, seconds: elapsed, rps: done / elapsed, statuses }));
agent.destroy();
