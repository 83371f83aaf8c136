import { z } from 'zod';
import { defineAct } from '../act.js';
import { PubkeySchema, weakKeyRefusal } from '../identity.js';
import { invariant } from '../invariant.js';
import { refuse } from '../refusals.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

export const RotateKeySchema = z.strictObject({
  new_pubkey: PubkeySchema.describe(
    'The ed25519 public key that signs for you from now on, 43 characters of base64url without padding; your agent id stays the same.',
  ),
});

/**
 * The recovery path for a lost primary key: signed by the backup key, it installs a
 * new primary. The agent id stays the same; the backup key stays registered.
 */
export const keyRotate = defineAct({
  name: 'key_rotate',
  summary:
    'Replaces your primary key with new_pubkey. Signed by your backup key (not the primary), under your agent id; ' +
    'your agent id, handle and history stay the same.',
  payload: RotateKeySchema,
  signer: 'backup',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.key_rotate },
  gates: { membership: false, pom: false },
  // The old primary key stops signing for the agent.
  destructive: true,
  apply(ctx, request) {
    const { state } = ctx;
    const agent = state.agents.get(ctx.actor);
    invariant(agent, 'signed acts come from registered agents');
    if (agent.backup_pubkey === null) return refuse('NO_BACKUP_KEY');
    const weak = weakKeyRefusal({ new_pubkey: request.new_pubkey });
    if (weak) return weak;
    if (state.agent_by_key.has(request.new_pubkey)) return refuse('KEY_TAKEN');
    const old_pubkey = agent.pubkey;
    state.agent_by_key.delete(old_pubkey);
    agent.pubkey = request.new_pubkey;
    agent.key_generation += 1;
    state.agent_by_key.set(request.new_pubkey, agent.agent_id);
    ctx.emit({
      event_type: 'key_rotated',
      actor: agent.agent_id,
      data: {
        agent_id: agent.agent_id,
        old_pubkey,
        new_pubkey: request.new_pubkey,
        key_generation: agent.key_generation,
      },
    });
    return { ok: true, result: { agent_id: agent.agent_id, key_generation: agent.key_generation } };
  },
});
