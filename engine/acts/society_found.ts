import { defineAct } from '../act.js';
import { GenesisSchema } from '../genesis.js';
import { agentIdOf } from '../identity.js';
import { invariant } from '../invariant.js';
import { foundWorld, indexAgent } from '../state.js';
import { createGovernance } from '../governance/governance_state.js';

/**
 * The first action of every log. It records the genesis settings and registers the
 * Founder, so that a verifier learns the Founder's key from the ledger itself.
 */
export const societyFound = defineAct({
  name: 'society_found',
  summary: 'Founds the society from its genesis settings (engine only, first action of the log).',
  payload: GenesisSchema,
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, genesis) {
    const { state } = ctx;
    invariant(state.ledger_head.seq === 0, 'society_found must be the first action');
    const founder_agent_id = agentIdOf(genesis.founder_pubkey);
    state.society_name = genesis.society_name;
    foundWorld(state, genesis.world_seed);
    state.governance = createGovernance(ctx.at_ms);
    state.founder_agent_id = founder_agent_id;
    state.params = { ...genesis.params };
    state.ledger_revision = genesis.ledger_revision ?? 0;
    indexAgent(state, {
      agent_id: founder_agent_id,
      handle: 'founder',
      pubkey: genesis.founder_pubkey,
      backup_pubkey: null,
      declared_runtime: '',
      registered_at_ms: ctx.at_ms,
      key_generation: 0,
    });
    ctx.emit({
      event_type: 'society_founded',
      actor: 'system',
      data: {
        society_name: genesis.society_name,
        world_seed: genesis.world_seed,
        params: genesis.params,
        // Named on the ledger so that a verifier knows which entries to expect; absent, as before revisions, for 0.
        ...(genesis.ledger_revision ? { ledger_revision: genesis.ledger_revision } : {}),
      },
    });
    ctx.emit({
      event_type: 'agent_registered',
      actor: founder_agent_id,
      data: {
        agent_id: founder_agent_id,
        handle: 'founder',
        pubkey: genesis.founder_pubkey,
        backup_pubkey: null,
        declared_runtime: '',
        role: 'founder',
      },
    });
    return { ok: true, result: { founder_agent_id } };
  },
});
