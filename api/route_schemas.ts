// The shapes of what the routes outside the act catalogue and the catalogue reads take and
// answer (api/route_docs.ts): identity, payments, operations, the agent rules and MCP files.
// Each is what the OpenAPI document says and what the contract tests hold the service's answers to.
import { z } from 'zod';

export const AgentId = z
  .string()
  .regex(/^ag_[0-9a-f]{16}$/)
  .describe('An agent id: ag_ and 16 lowercase hex digits');

export const ReceiptSchema = z.object({
  leaf_index: z.int().describe('seq - 1'),
  entry: z.string().describe("The entry's exact JSON text, as stored and served: the leaf's bytes"),
  checkpoint: z.string().describe('A signed checkpoint (C2SP tlog-checkpoint) whose tree holds the leaf'),
  inclusion_proof: z.array(z.string()).describe('RFC 6962 audit path, leaf to root, standard base64 hashes'),
});

/** How the service writes a time (engine/time.ts isoAt): ISO 8601 to the millisecond, with an explicit offset (`+00:00`). */
const IsoTime = z.iso.datetime({ offset: true, precision: 3 });

export const MembershipStatus = z.object({
  agent_id: z.string(),
  payments: z.enum(['off', 'test', 'live']),
  status: z.enum(['active', 'unpaid']),
  payment_mode: z.enum(['test', 'live']).nullable().describe('The mode of the payment on record, if any'),
  payment_mode_current: z.boolean().describe('Whether that payment was made in the payment mode in force now'),
  billing_account: z.boolean(),
  updated_at: IsoTime.nullable(),
});

export const Nonce = z.object({ agent: z.string(), nonce: z.string(), expires_at: IsoTime });

export const CheckoutSession = z.object({ id: z.string(), url: z.url(), amount_cents: z.int() });

export const ProcessorEvent = z.looseObject({
  id: z.string(),
  type: z.string(),
  data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
});
export const WebhookAnswer = z.object({
  received: z.literal(true),
  fulfilled: z.boolean(),
  duplicate: z.literal(true).optional(),
  ignored: z.string().optional(),
});

export const RecoverRequest = z.object({ session_id: z.string().regex(/^cs_[A-Za-z0-9_]{1,250}$/) });

export const RecoverAnswer = z.object({ recovered: z.literal(true), observer_id: z.string() });
export const GrantRequest = z.strictObject({
  kind: z.enum(['observer']).default('observer'),
  note: z.string().max(500).default(''),
});

const SkippedBackups = z.array(z.object({ name: z.string(), reason: z.string() }));

export const BackupTaken = z.object({
  backup_id: z.string(),
  ledger_seq: z.int(),
  ledger_hash: z.string(),
  manifest: z.looseObject({
    format: z.int(),
    backup_id: z.string(),
    ledger_seq: z.int(),
    ledger_hash: z.string(),
    data_bytes: z.int(),
    data_sha256: z.string(),
    created_at: z.iso.datetime(),
  }),
  leftovers_removed: z.array(z.string()),
  skipped: SkippedBackups,
  recorded_at_seq: z.int().optional(),
});

export const DrillOutcome = z.object({
  outcome: z.enum(['passed', 'failed']),
  detail: z.string(),
  backup_id: z.string().nullable(),
  first_bad_seq: z.int().optional(),
  skipped: SkippedBackups,
  recorded_at_seq: z.int().optional(),
});

const JsonRpcId = z.union([z.string(), z.int()]);
export const JsonRpcMessage = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId.optional(),
  method: z.string().optional(),
});
export const JsonRpcAnswer = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId.nullable(),
  result: z.record(z.string(), z.unknown()).optional().describe('As MCP has it (initialize, tools/list, ...)'),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

export const AgentRules = z.looseObject({
  version: z.string(),
  signing: z.looseObject({
    scheme: z.string(),
    headers: z.array(z.string()),
    nonce: z.string(),
    signing_string: z.string(),
    canonical_body: z.string(),
  }),
  proof_of_machine: z.looseObject({
    acts: z.array(z.string()),
    deadline_ms: z.int(),
    kinds: z.record(z.string(), z.string()),
  }),
  limits: z.record(z.string(), z.union([z.string(), z.int()])),
  ledger_recipe: z.string().describe('How each entry hashes and chains, in words'),
  transparency_log: z.record(z.string(), z.string()).describe('Receipts, checkpoints, tiles and proofs: where and how'),
  acts: z.array(
    z.looseObject({
      name: z.string(),
      summary: z.string(),
      effect: z.enum(['read', 'write']),
      signed_by: z.string(),
      payload_schema: z.record(z.string(), z.unknown()),
    }),
  ),
  read_tools: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string(),
      path: z.string(),
      input_schema: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const McpDescriptor = z.looseObject({
  name: z.string(),
  version: z.string(),
  description: z.string(),
  streamable_http: z.looseObject({ url: z.string() }),
  stdio: z.looseObject({ command: z.string(), args: z.array(z.string()) }),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().optional(), signed: z.boolean() })),
});
