import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { unwatchAnswers, watchAnswers } from './contract.js';

/** How a child server ended: its exit code, or the signal that ended it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** Every line the server wrote to stdout so far. */
  output: string[];
  /** Resolves when the process has ended, however it ended (a fenced node's 75, a SIGKILL). */
  exited: Promise<ChildExit>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Sends a signal and returns at once: SIGSTOP and SIGCONT pause and resume the node as a stalled machine would. */
  signal(signal: NodeJS.Signals): void;
}

/** The server ended before it listened (a refused start): its exit code and what it wrote to stderr. */
export class ChildServerExitedError extends Error {
  constructor(
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`server exited with ${code}: ${stderr}`);
  }
}

/** The built server, as an operator runs it. */
const BUILT_SERVER = 'dist/api/main.js';

/**
 * The OpenAPI document the built server serves, from the build it runs (dist/, not the
 * sources the tests are compiled from: the two differ until the next build).
 */
async function servedDocument(): Promise<Record<string, any>> {
  const built = pathToFileURL(resolvePath(dirname(BUILT_SERVER), 'openapi.js')).href;
  const { openApiDocument } = (await import(built)) as { openApiDocument(): Record<string, any> };
  return openApiDocument();
}

/** Starts `node dist/api/main.js` as a separate process, as an operator would, and waits for its address. */
export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const child = spawn(process.execPath, [BUILT_SERVER], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const output: string[] = [];
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<ChildExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      output.push(line);
      if (line.startsWith('{"listening"')) resolve((JSON.parse(line) as { listening: string }).listening);
    });
    child.once('exit', (code) => reject(new ChildServerExitedError(code, stderr)));
  });
  // Its answers are checked against the document it serves while it runs (test/helpers/contract_setup.ts).
  watchAnswers(url, await servedDocument());
  void exited.then(() => unwatchAnswers(url));
  return {
    url,
    process: child,
    output,
    exited,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
