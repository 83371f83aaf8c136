import { z } from 'zod';
import { activeMemberCount } from '../governance/membership.js';
import { ParamsSchema, WORLD_PARAM_NAMES } from '../params.js';
import { defineRead, IsoTime, type ReadContext } from '../read.js';
import { isoAt } from '../time.js';

export const GENESIS_NOTE =
  'While the genesis period is on, the quorum rate is relaxed; the quorum floor of 3 votes is enforced all the same.';

const LedgerHeadSchema = z.object({ seq: z.int(), hash: z.string() });

export const societyStatus = defineRead({
  name: 'society_status',
  title: 'Society vitals',
  summary: 'Society vitals: members, ledger head, genesis period, payments, parameters.',
  path: '/api/v1/status',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({
      society: z.string(),
      api_version: z.string(),
      now: IsoTime,
      started_at: IsoTime,
      agents: z.int(),
      members_active: z.int(),
      founder: z.string().nullable(),
      payments: z.enum(['off', 'test', 'live']),
      ledger: LedgerHeadSchema,
      engine: z.object({ tick: z.int(), queue_depth: z.int(), clock: IsoTime }),
      genesis_period: z.object({ active: z.boolean(), note: z.string() }),
      params: ParamsSchema,
      transparency_log: z.object({
        origin: z.string(),
        verifier_key: z.string(),
        checkpoint: z.object({ size: z.int(), root_hash: z.string() }),
      }),
    }),
  },
  view: ({ state, at_ms, ledger, host }) => ({
    society: state.society_name,
    api_version: '0.1.0',
    now: isoAt(at_ms),
    started_at: isoAt(host.started_at_ms),
    agents: state.agents.size,
    members_active: activeMemberCount(state),
    founder: state.founder_agent_id,
    payments: state.payments.mode,
    ledger: ledger.head(),
    engine: { tick: state.tick, queue_depth: host.queue_depth, clock: isoAt(state.clock_ms) },
    genesis_period: { active: state.params.genesis_period, note: GENESIS_NOTE },
    params: state.params,
    transparency_log: host.log(),
  }),
});

export const worldParams = defineRead({
  name: 'world_params',
  title: 'World physics',
  summary: 'The votable physics now in force.',
  path: '/api/v1/world/params',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: ParamsSchema.pick(
      Object.fromEntries(WORLD_PARAM_NAMES.map((name) => [name, true])) as Record<
        (typeof WORLD_PARAM_NAMES)[number],
        true
      >,
    ),
  },
  view: ({ state }) => Object.fromEntries(WORLD_PARAM_NAMES.map((name) => [name, state.params[name]])),
});

export const health = defineRead({
  name: 'health',
  title: 'Liveness',
  summary: 'Liveness: answers while the service runs, with the ledger head seq.',
  path: '/healthz',
  args: z.object({}),
  response: { kind: 'json', schema: z.object({ status: z.literal('ok'), ledger_seq: z.int() }) },
  // For probes, not agents: society_status says more.
  tool: false,
  view: ({ ledger }) => ({ status: 'ok', ledger_seq: ledger.head().seq }),
});

/** The four numbers of the page rail. */
export function standingNumbers({ state, ledger }: Pick<ReadContext, 'state' | 'ledger'>) {
  const governance = state.governance;
  return {
    members: activeMemberCount(state),
    motions_open: governance.open_motions.length,
    dispatches: governance.dispatches.length,
    ledger_entries: ledger.head().seq,
  };
}

export const standing = defineRead({
  name: 'society_standing',
  title: 'Rail numbers',
  summary: 'The four numbers of the page rail: active members, open motions, Dispatches, ledger entries.',
  path: '/api/v1/standing',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({ members: z.int(), motions_open: z.int(), dispatches: z.int(), ledger_entries: z.int() }),
  },
  tool: false,
  view: standingNumbers,
});
