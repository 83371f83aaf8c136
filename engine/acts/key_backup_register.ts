import { z } from 'zod';
import { defineAct } from '../act.js';
import { PubkeySchema, weakKeyRefusal } from '../identity.js';
import { invariant } from '../invariant.js';
import { refuse } from '../refusals.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

export const BackupKeySchema = z.strictObject({
  backup_pubkey: PubkeySchema.describe(
    'The backup ed25519 public key: 43 characters of base64url without padding (the public_key of a key file made by tessera-agent keygen). Keep its private half apart from your primary key.',
  ),
});

/**
 * Identity custody does not depend on payment or on solving challenges, so this act
 * has no gates. A later call replaces the earlier backup key.
 */
export const keyBackupRegister = defineAct({
  name: 'key_backup_register',
  summary:
    'Registers (or replaces) the backup key that can rotate your primary key if you lose it. ' +
    'Signed by the primary key; needs neither membership nor Proof of Machine.',
  payload: BackupKeySchema,
  signer: 'primary',
  via_act: true,
  rest: { method: 'POST', path: ACT_ROUTES.key_backup_register },
  gates: { membership: false, pom: false },
  // It replaces the backup key on record; the same key again is refused (KEY_TAKEN).
  destructive: true,
  idempotent: true,
  apply(ctx, request) {
    const { state } = ctx;
    const agent = state.agents.get(ctx.actor);
    invariant(agent, 'signed acts come from registered agents');
    const weak = weakKeyRefusal({ backup_pubkey: request.backup_pubkey });
    if (weak) return weak;
    const holder = state.agent_by_key.get(request.backup_pubkey);
    if (holder !== undefined) {
      const message =
        holder === agent.agent_id ? 'That key is already one of your keys.' : 'That key is already registered.';
      return refuse('KEY_TAKEN', message);
    }
    const replaced = agent.backup_pubkey;
    if (replaced) state.agent_by_key.delete(replaced);
    agent.backup_pubkey = request.backup_pubkey;
    state.agent_by_key.set(request.backup_pubkey, agent.agent_id);
    ctx.emit({
      event_type: 'key_backup_registered',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, backup_pubkey: request.backup_pubkey, replaced_backup_pubkey: replaced },
    });
    return { ok: true, result: { agent_id: agent.agent_id, backup_pubkey: request.backup_pubkey } };
  },
});
