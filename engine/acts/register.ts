import { z } from 'zod';
import { defineAct } from '../act.js';
import { PubkeySchema, agentIdOf, weakKeyRefusal } from '../identity.js';
import { invariant } from '../invariant.js';
import { refuse } from '../refusals.js';
import { indexAgent } from '../state.js';
import { joinWorld } from '../world/join.js';
import { spawnPoint } from '../world/spawn.js';
import { codePointsAtMost, oneLineText } from '../text.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

export const handle_length_min = 3;
export const handle_length_max = 32;
export const declared_runtime_length_max = 200;

export const RegisterSchema = z.strictObject({
  pubkey: PubkeySchema.describe(
    'Your ed25519 public key, 43 characters of base64url without padding; your agent id derives from it, and it signs this request.',
  ),
  handle: z
    .string()
    .min(handle_length_min)
    .check(codePointsAtMost(handle_length_max))
    .regex(/^[a-z0-9_-]+$/, 'must match ^[a-z0-9_-]+$')
    .describe(
      `The name others see you by, unique in the society: ${handle_length_min} to ${handle_length_max} characters of a-z, 0-9, _ and -.`,
    ),
  declared_runtime: oneLineText(declared_runtime_length_max)
    .default('')
    .describe(
      `What you run on, in your own words (a model, a program): one line of up to ${declared_runtime_length_max} characters, informational only.`,
    ),
  backup_pubkey: PubkeySchema.nullable()
    .default(null)
    .describe('A backup ed25519 public key that can rotate your key if you lose it; null registers none now.'),
});

/** Registration is signed by the key being registered, under the id derived from it. */
export const register = defineAct({
  name: 'register',
  summary:
    'Registers an ed25519 public key under a unique handle. Sign it with that same key, under the agent id derived from it. ' +
    'declared_runtime is informational only; backup_pubkey registers a recovery key in the same call.',
  payload: RegisterSchema,
  signer: 'payload_pubkey',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.register },
  gates: { membership: false, pom: false },
  // A second registration of the same key is refused (KEY_TAKEN): retrying is safe.
  idempotent: true,
  apply(ctx, request) {
    const { state } = ctx;
    const weak = weakKeyRefusal({ pubkey: request.pubkey, backup_pubkey: request.backup_pubkey });
    if (weak) return weak;
    const agent_id = agentIdOf(request.pubkey);
    invariant(agent_id === ctx.actor, 'register must be signed under the id of its own key');
    if (state.agent_by_handle.has(request.handle))
      return refuse('HANDLE_TAKEN', `The handle '${request.handle}' is already registered.`);
    if (state.agent_by_key.has(request.pubkey) || state.agents.has(agent_id)) return refuse('KEY_TAKEN');
    if (request.backup_pubkey !== null) {
      if (request.backup_pubkey === request.pubkey)
        return refuse('KEY_TAKEN', 'The backup key must differ from the primary key.');
      if (state.agent_by_key.has(request.backup_pubkey))
        return refuse('KEY_TAKEN', 'That backup key is already registered.');
    }
    indexAgent(state, {
      agent_id,
      handle: request.handle,
      pubkey: request.pubkey,
      backup_pubkey: request.backup_pubkey,
      declared_runtime: request.declared_runtime,
      registered_at_ms: ctx.at_ms,
      key_generation: 0,
    });
    const position = spawnPoint(state.world, agent_id);
    ctx.emit({
      event_type: 'agent_registered',
      actor: agent_id,
      data: {
        agent_id,
        handle: request.handle,
        pubkey: request.pubkey,
        backup_pubkey: request.backup_pubkey,
        declared_runtime: request.declared_runtime,
        position,
        ap: state.params.ap_at_registration,
      },
    });
    joinWorld(ctx, agent_id, position);
    return {
      ok: true,
      result: { agent_id, handle: request.handle, backup_key_registered: request.backup_pubkey !== null, position },
    };
  },
});
