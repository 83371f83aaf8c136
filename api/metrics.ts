import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Engine, TickReport } from '../engine/index.js';

/**
 * Prometheus metrics: the engine's queue, tick and commit times, acts by name and
 * outcome, and request latency by route. Served at GET /metrics.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly tick_seconds = new Histogram({
    name: 'tessera_tick_apply_seconds',
    help: 'Time to apply one tick',
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
    registers: [this.registry],
  });
  private readonly commit_seconds = new Histogram({
    name: 'tessera_tick_commit_seconds',
    help: 'Time for one tick to become durable',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    registers: [this.registry],
  });
  private readonly acts = new Counter({
    name: 'tessera_acts_total',
    help: 'Acts applied or refused, by act and outcome code',
    labelNames: ['act', 'outcome'],
    registers: [this.registry],
  });
  private readonly entries = new Counter({
    name: 'tessera_ledger_entries_total',
    help: 'Ledger entries committed since start',
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'tessera_http_request_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  constructor(engine: () => Engine | undefined) {
    collectDefaultMetrics({ register: this.registry, prefix: 'tessera_process_' });
    new Gauge({
      name: 'tessera_queue_depth',
      help: 'Actions waiting for a tick',
      registers: [this.registry],
      collect() {
        this.set(engine()?.queue_depth ?? 0);
      },
    });
    new Gauge({
      name: 'tessera_ledger_seq',
      help: 'The ledger head seq in memory',
      registers: [this.registry],
      collect() {
        this.set(engine()?.state.ledger_head.seq ?? 0);
      },
    });
  }

  onTick(report: TickReport): void {
    this.tick_seconds.observe(report.apply_ms / 1000);
    this.commit_seconds.observe(report.commit_ms / 1000);
    this.entries.inc(report.entries);
    for (const { act, code } of report.outcomes) this.acts.inc({ act, outcome: code });
  }

  /** Latency by the matched route pattern (never the raw URL: ids and tokens stay out of labels). */
  middleware(): Middleware {
    return async (ctx, next) => {
      const started_ms = performance.now();
      try {
        await next();
      } finally {
        this.requestAnswered(ctx.route_pattern ?? 'unmatched', ctx.method, ctx.status, started_ms);
      }
    };
  }

  /** One answered request, counted in the latency histogram; for the answers that do not go through Koa too. */
  requestAnswered(route: string, method: string, status: number, started_ms: number): void {
    this.latency.observe({ route, method, status: String(status) }, (performance.now() - started_ms) / 1000);
  }
}
