import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

/** Whether Debian's nats-server is installed (.ci/run installs it); the cluster tests and benchmark say so and skip without it. */
export const HAVE_NATS_SERVER = spawnSync('nats-server', ['--version']).status === 0;

interface NatsNode {
  name: string;
  client_port: number;
  config_file: string;
  process: ChildProcess | undefined;
}

/**
 * A NATS cluster of `size` nodes on loopback, each with its own JetStream folder, as
 * the tests' and the benchmark's stand-in for three machines. Nodes can be killed and
 * started again.
 */
export class NatsCluster {
  private constructor(
    readonly folder: string,
    private readonly nodes: NatsNode[],
  ) {}

  static async start(size = 3): Promise<NatsCluster> {
    const folder = mkdtempSync(join(tmpdir(), 'tessera-nats-'));
    const ports = [];
    for (let index = 0; index < size; index++) ports.push({ client: await freePort(), route: await freePort() });
    const routes = ports.map(({ route }) => `nats-route://127.0.0.1:${route}`).join(', ');
    const nodes = ports.map(({ client, route }, index) => {
      const name = `n${index + 1}`;
      const store_dir = join(folder, name);
      mkdirSync(store_dir);
      const config_file = join(folder, `${name}.conf`);
      writeFileSync(
        config_file,
        [
          `server_name: ${name}`,
          `listen: 127.0.0.1:${client}`,
          `jetstream { store_dir: "${store_dir}" }`,
          `cluster { name: tessera_test, listen: 127.0.0.1:${route}, routes: [${routes}] }`,
        ].join('\n'),
      );
      return { name, client_port: client, config_file, process: undefined };
    });
    const cluster = new NatsCluster(folder, nodes);
    for (let index = 0; index < size; index++) cluster.startNode(index);
    await cluster.ready();
    return cluster;
  }

  /** LOG_URL for every node, or for the nodes given (a client fails over between those it knows). */
  url(...indexes: number[]): string {
    const chosen = indexes.length > 0 ? indexes.map((index) => this.nodes[index]!) : this.nodes;
    return chosen.map((node) => `nats://127.0.0.1:${node.client_port}`).join(',');
  }

  /** The running nodes' process ids (their CPU time counts in a benchmark's per-act cost). */
  pids(): number[] {
    return this.nodes.flatMap((node) => (node.process?.pid ? [node.process.pid] : []));
  }

  startNode(index: number): void {
    const node = this.nodes[index]!;
    node.process = spawn('nats-server', ['-c', node.config_file], { stdio: 'ignore' });
  }

  async killNode(index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.nodes[index]!.process;
    this.nodes[index]!.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /** Resolves once JetStream answers with a meta leader elected (a stream can then be made with every replica). */
  async ready(within_ms = 20_000): Promise<void> {
    const give_up = Date.now() + within_ms;
    for (;;) {
      try {
        const connection = await connect({ servers: this.url().split(','), timeout: 1000 });
        try {
          // A stream with a copy on every node can be made only once every node has joined JetStream's meta group.
          const manager = await jetstreamManager(connection, { timeout: 2000 });
          await manager.streams.add({
            name: 'ready_probe',
            subjects: ['ready.probe'],
            num_replicas: this.nodes.length,
          });
          await manager.streams.delete('ready_probe');
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > give_up) throw new Error(`the NATS cluster did not come up: ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async stop(): Promise<void> {
    for (let index = 0; index < this.nodes.length; index++) await this.killNode(index, 'SIGTERM');
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
