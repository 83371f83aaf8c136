import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ClusterNode } from './cluster_node.js';

/** What an operator watches on a replicated society: who leads, how far behind a node is, what an append costs. */
export class ClusterMetrics {
  private readonly append_seconds: Histogram;

  constructor(registry: Registry, node: () => ClusterNode | undefined) {
    this.append_seconds = new Histogram({
      name: 'tessera_log_append_seconds',
      help: 'Time for a tick to be stored by a quorum of the replicated log (the writer only)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    });
    new Gauge({
      name: 'tessera_log_lag_ticks',
      help: 'Ticks the replicated log holds that this node has not applied yet',
      registers: [registry],
      collect() {
        this.set(node()?.lag_ticks ?? 0);
      },
    });
    new Gauge({
      name: 'tessera_leader',
      help: '1 while this node holds the leader lease and writes, else 0',
      registers: [registry],
      collect() {
        this.set(node()?.leading ? 1 : 0);
      },
    });
  }

  onAppend(ms: number): void {
    this.append_seconds.observe(ms / 1000);
  }
}
