import { encodeTick } from '../../api/cluster/tick_log.js';
import { stateHash } from '../../engine/index.js';
import { Invariants } from './invariants.js';
import { prologue } from './prologue.js';
import { MemoryStore } from '../../engine/index.js';
import { Random } from './random.js';
import { Scheduler } from './scheduler.js';
import { SimClient, type HttpFaults } from './sim_client.js';
import { SimNats, type NatsFaults } from './sim_nats.js';
import { SimNode } from './sim_node.js';

export interface SimulationOptions {
  seed: number;
  /** false: the tick log as it was before fencing by term (test/simulation/unfenced_tick_log.ts). */
  fenced?: boolean;
  /** Simulated time with faults, then time for the cluster to settle with none. */
  faults_ms?: number;
  settle_ms?: number;
  lease_ttl_ms?: number;
  clients?: number;
  /** Also write down what every agent was told (one seed's replay). */
  trace?: boolean;
}

export interface SimulationResult {
  seed: number;
  violations: string[];
  /** What happened, in order: the faults, the exits, the changes of writer. Printed for a failing seed. */
  schedule: string[];
  stats: { events: number; nats_calls: number; acknowledged: number; unknown: number; exits: number; terms: number };
}

const CALM_NATS: NatsFaults = { lose_request: 0, lose_answer: 0, refuse: 0, delay: 0, timeout_ms: 5000 };

/** The faults a seed's run may draw, and the share of runs each weather has. */
const NATS_WEATHER: NatsFaults[] = [
  CALM_NATS,
  { lose_request: 0.01, lose_answer: 0.01, refuse: 0.01, delay: 0.02, timeout_ms: 5000 },
  { lose_request: 0.05, lose_answer: 0.05, refuse: 0.05, delay: 0.1, timeout_ms: 2000 },
];
const HTTP_WEATHER: HttpFaults[] = [
  { lose_request: 0, lose_answer: 0, timeout_ms: 8000 },
  { lose_request: 0.02, lose_answer: 0.02, timeout_ms: 8000 },
  { lose_request: 0.05, lose_answer: 0.1, timeout_ms: 4000 },
];

type Fault =
  | 'pause the leader as it appends'
  | 'pause the leader as it appends, until another leads'
  | 'pause the leader'
  | 'pause a node'
  | 'kill the leader'
  | 'kill a node'
  | 'NATS loses its quorum';
const FAULTS: Fault[] = [
  'pause the leader as it appends',
  'pause the leader as it appends, until another leads',
  'pause the leader as it appends, until another leads',
  'pause the leader',
  'pause a node',
  'kill the leader',
  'kill a node',
  'NATS loses its quorum',
];

/**
 * One seeded run of a replicated society: three nodes, a NATS cluster, agents acting
 * through the SDK's rules, and faults drawn from the seed (pauses, kills, lost and late
 * messages, failed calls, quorum loss, clock drift), on simulated time. The invariants
 * are checked after every event; then the faults stop, the cluster settles, and the
 * end state is checked: one writer, every node at the same head and state, nothing
 * acknowledged lost. The same seed always runs the same way.
 */
export async function simulate(options: SimulationOptions): Promise<SimulationResult> {
  const {
    seed,
    fenced = true,
    faults_ms = 40_000,
    settle_ms = 40_000,
    lease_ttl_ms = 3000,
    clients = 3,
    trace = false,
  } = options;
  const random = new Random(seed);
  const plan = random.fork();
  const network = random.fork();
  const scheduler = new Scheduler();
  const schedule: string[] = [];
  const note = (line: string) => schedule.push(`${(scheduler.now_ms / 1000).toFixed(3)} s: ${line}`);
  const start = await prologue();
  const nats_weather = plan.pick(NATS_WEATHER);
  // An agent's own timeout, drawn apart from the losses: how soon it gives up on a frozen node and resends elsewhere.
  const http_weather = { ...plan.pick(HTTP_WEATHER), timeout_ms: plan.pick([2000, 4000, 8000]) };
  const nats = new SimNats(scheduler, network.fork(), nats_weather, 2 * lease_ttl_ms);
  nats.publishNow('term', JSON.stringify({ term: 'prologue', after_tick: 0 }), 'term:prologue', 0);
  for (const tick of start.ticks)
    nats.publishNow('tick', encodeTick(tick), `prologue:${tick.record.tick}`, nats.stream.all.length);
  const invariants = new Invariants(() => scheduler.now_ms, nats.message_ids, fenced);
  const nodes: SimNode[] = [];
  for (const id of ['a', 'b', 'c']) {
    const node = new SimNode(
      {
        id,
        role: id === 'a' ? 'leader' : 'replica',
        lease_ttl_ms,
        clock_rate: plan.between(0.98, 1.02),
        clock_offset_ms: plan.between(-2000, 2000),
        fenced,
      },
      new MemoryStore(),
      start,
      scheduler,
      nats,
      network.fork(),
      (exit) => {
        note(`${exit.node} exited ${exit.code}: ${exit.why}`);
        invariants.checkExit(exit);
      },
    );
    nodes.push(node);
    scheduler.at(plan.between(0, 300), undefined, () => void node.start());
  }
  const leader = () => nodes.find((node) => node.running?.cluster.leading);
  const agents = Array.from({ length: clients }, (_, index) => {
    const client = new SimClient(
      `client${index}`,
      start.members[index]!,
      nodes,
      plan.pick(nodes),
      scheduler,
      network.fork(),
      http_weather,
      plan.chance(0.5),
      trace ? note : undefined,
    );
    scheduler.at(1000 + plan.between(0, 500), undefined, () => void client.run());
    return client;
  });
  schedule.push(
    `seed ${seed}: NATS ${JSON.stringify(nats_weather)}, HTTP ${JSON.stringify(http_weather)}, ${fenced ? 'fenced' : 'UNFENCED'}`,
  );
  /** Paused processes to wake up once another node leads (the worst moment: it has caught up, not yet written). */
  const waking: { owner: string; after_ms: number }[] = [];
  for (let count = plan.int(1, 4); count > 0; count--) {
    const fault = plan.pick(FAULTS);
    const at_ms = plan.between(2000, faults_ms - 3000);
    const length_ms = plan.between(0.3, 3) * lease_ttl_ms;
    const wake_after_ms = plan.pick([0, 100, 500, 1500, 3000]);
    const victim = plan.pick(nodes);
    scheduler.at(at_ms, undefined, () => {
      const target = fault.includes('leader') ? leader() : victim;
      if (fault === 'NATS loses its quorum') {
        nats.outages.push({ from_ms: scheduler.now_ms, until_ms: scheduler.now_ms + length_ms });
        return note(`${fault} for ${Math.round(length_ms)} ms`);
      }
      if (!target?.owner) return note(`${fault}: nobody to do it to`);
      if (fault.startsWith('kill')) return target.kill(fault);
      const until_another_leads = fault.endsWith('until another leads');
      const pause = (owner: string) => {
        scheduler.pause(owner);
        if (until_another_leads) {
          note(`${owner} paused until another node has led for ${Math.round(wake_after_ms)} ms`);
          return waking.push({ owner, after_ms: wake_after_ms });
        }
        note(`${owner} paused for ${Math.round(length_ms)} ms`);
        scheduler.at(length_ms, undefined, () => {
          note(`${owner} resumed`);
          scheduler.resume(owner);
        });
      };
      if (!fault.startsWith('pause the leader as it appends')) return pause(target.owner);
      const owner = target.owner;
      note(`waiting for ${owner} to append, to pause it then`);
      nats.on_publish = (publisher, kind) => {
        if (publisher !== owner || kind !== 'tick') return;
        nats.on_publish = undefined;
        pause(owner);
      };
    });
  }
  let leading: string | undefined;
  const check = () => {
    const now_leading = leader()?.owner;
    if (now_leading !== leading) {
      leading = now_leading;
      if (leading) note(`${leading} leads`);
      for (const sleeper of waking.splice(0)) {
        if (sleeper.owner === leading) continue;
        scheduler.at(sleeper.after_ms, undefined, () => {
          note(`${sleeper.owner} resumed`);
          scheduler.resume(sleeper.owner);
        });
      }
    }
    invariants.checkLog(nats.stream.all);
    invariants.checkLedger(nodes);
    for (const agent of agents) invariants.checkAcknowledged(agent.outcomes, agent.name);
  };
  await scheduler.run(faults_ms, check);
  // The faults end; agents finish what they are doing; the cluster settles.
  note('faults stop');
  nats.setFaults(CALM_NATS);
  nats.on_publish = undefined;
  for (const node of nodes) if (node.owner && scheduler.isPaused(node.owner)) scheduler.resume(node.owner);
  for (const agent of agents) agent.stop();
  await scheduler.run(faults_ms + settle_ms, check);
  const outcomes = agents.flatMap((agent) => agent.outcomes);
  invariants.checkNothingLost(outcomes);
  invariants.checkReceipts(outcomes, nodes);
  checkSettled(nodes, invariants.violations);
  return {
    seed,
    violations: invariants.violations,
    schedule,
    stats: {
      events: scheduler.events_run,
      nats_calls: nats.calls,
      acknowledged: outcomes.filter((outcome) => 'acknowledged_seq' in outcome).length,
      unknown: outcomes.filter((outcome) => 'unknown' in outcome).length,
      exits: nodes.reduce((sum, node) => sum + node.exits.length, 0),
      terms: nats.stream.all.filter((message) => message.kind === 'term').length,
    },
  };
}

/** Once the faults are over: one writer, and every node at the same head, entry and state. */
function checkSettled(nodes: readonly SimNode[], violations: string[]): void {
  const running = nodes.filter((node) => node.running);
  if (running.length !== nodes.length)
    violations.push(`after settling, ${nodes.length - running.length} node(s) are down`);
  const leaders = running.filter((node) => node.running!.cluster.leading);
  if (leaders.length !== 1) violations.push(`after settling, ${leaders.length} nodes lead`);
  const [first, ...rest] = running;
  if (!first) return;
  for (const node of rest) {
    const a = first.store.ledgerHead();
    const b = node.store.ledgerHead();
    if (a.seq !== b.seq || a.hash !== b.hash)
      violations.push(`after settling, ${first.options.id} is at seq ${a.seq} and ${node.options.id} at seq ${b.seq}`);
    else if (stateHash(first.running!.engine.state) !== stateHash(node.running!.engine.state))
      violations.push(
        `after settling, ${first.options.id} and ${node.options.id} hold different states at seq ${a.seq}`,
      );
  }
}
