import { ActRequestSchema } from '../act_routes.js';
import type { JsonSchema, PathItem, SchemaComponents } from './json_schema.js';
import { ACT_RULE_CODES, actGateCodes } from './act_refusals.js';
import { ALWAYS_CODES, JSON_BODY_CODES, SIGNATURE_CODES, SIGNED } from './responses.js';
import { refusalResponses, replicaRedirectResponse } from './responses.js';
import { ACT_ANSWER_HEADERS } from './headers.js';
import { limitedResponses } from './rate_limited.js';
import { type ActDefinition, CATALOGUE, register, type RefusalCode } from '../../engine/index.js';

const LEDGER_RANGE: JsonSchema = {
  type: 'object',
  required: ['first_seq', 'last_seq'],
  properties: { first_seq: { type: 'integer', minimum: 1 }, last_seq: { type: 'integer', minimum: 1 } },
  description: 'Where the act landed on the ledger: its entries, first to last. Absent for acts that only look.',
};

/** The receipt of a write's first entry (api/log/transparency_log.ts Receipt), as GET /log/receipt/{seq} serves it. */
export const RECEIPT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['leaf_index', 'entry', 'checkpoint', 'inclusion_proof'],
  properties: {
    leaf_index: { type: 'integer', minimum: 0, description: 'seq - 1' },
    entry: { type: 'string', description: "The entry's exact JSON text, as stored and served: the leaf's bytes" },
    checkpoint: { type: 'string', description: 'A signed checkpoint (C2SP tlog-checkpoint) whose tree holds the leaf' },
    inclusion_proof: {
      type: 'array',
      items: { type: 'string' },
      description: 'RFC 6962 audit path, leaf to root, standard base64 hashes',
    },
  },
  additionalProperties: false,
  description:
    "Proof that the act's first entry is on the transparency log: SHA-256(0x00 || entry) at leaf_index leads by " +
    'the inclusion proof to the root of the checkpoint. With every write whose entry the log holds.',
};

/** Acts declare no result schema: a result is an object whose fields each act documents in its summary. */
const RESULT: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: "The act's result (its fields depend on the act)",
};

/** The route of every act named in its body. */
const ACT_PATH = '/api/v1/act';

/** Routes with a limit of their own in front of the act (api/app.ts mounts the registration limiter). */
const ROUTE_LIMITED = new Set([register.rest!.path]);

const REFUSALS_NOTE =
  "Refusals: the signature's, the body's, the act's gates, and every code an act's rules may answer (acts do " +
  'not declare theirs one by one); each under the status of its code.';

const SIGNERS: Record<ActDefinition['signer'], string | undefined> = {
  primary: undefined,
  payload_pubkey: "Signed by the key being registered: X-Agent-Id is the id derived from the payload's pubkey.",
  backup: "Signed by the agent's backup key.",
  system: undefined,
};

function pascal(name: string): string {
  return name.replace(/(^|_)(\w)/g, (_, _sep: string, letter: string) => letter.toUpperCase());
}

/**
 * Whether a route's answers say where the client stands under a limit: the route's own
 * (the registration limiter), or a rolling-window rule of an act it serves (api/act_routes.ts).
 */
function isLimited(path: string, acts: readonly ActDefinition[]): boolean {
  return ROUTE_LIMITED.has(path) || acts.some((act) => act.allowance !== undefined);
}

function signedActResponses(
  success: JsonSchema,
  description: string,
  codes: RefusalCode[],
  limited: boolean,
): Record<string, JsonSchema> {
  const refusals = [...SIGNATURE_CODES, ...JSON_BODY_CODES, ...codes, ...ACT_RULE_CODES, ...ALWAYS_CODES];
  return limitedResponses(limited, {
    '200': { description, headers: ACT_ANSWER_HEADERS, content: { 'application/json': { schema: success } } },
    // Every act is a write as a read replica sees it (api/cluster/replica_writes.ts).
    '307': replicaRedirectResponse(),
    ...refusalResponses(refusals, { signed: true }),
  });
}

function actExtension(act: ActDefinition, payload: JsonSchema): JsonSchema {
  return {
    summary: act.summary,
    effect: act.effect,
    signer: act.signer,
    membership: act.gates.membership,
    proof_of_machine: act.gates.pom,
    founder_only: act.gates.founder ?? false,
    payload,
  };
}

type PayloadRef = (act: ActDefinition) => JsonSchema;

/** The body of POST /api/v1/act: the request's own fields, and one act with its payload. */
function actRequestBody(via_act: ActDefinition[], request: JsonSchema, payload_ref: PayloadRef) {
  const one_act = (act: ActDefinition) => ({
    type: 'object',
    required: ['act'],
    properties: { act: { const: act.name }, payload: payload_ref(act) },
  });
  const schema = { allOf: [request], oneOf: via_act.map(one_act) };
  return { required: true, content: { 'application/json': { schema } } };
}

/**
 * POST /api/v1/act and every act's dedicated route, from the act catalogue: each act's
 * payload schema once under components, the body of /api/v1/act one of them by `act`.
 */
export function actPaths(components: SchemaComponents): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  const payload_ref = (act: ActDefinition) =>
    components.add(`${pascal(act.name)}Payload`, { ...components.of(act.payload, 'input'), description: act.summary });
  const via_act = CATALOGUE.filter((act) => act.via_act);
  const request = components.add('ActRequest', components.of(ActRequestSchema, 'input'));
  const receipt = components.add('Receipt', RECEIPT_SCHEMA);
  const envelope: JsonSchema = {
    type: 'object',
    required: ['act', 'result'],
    properties: {
      act: { type: 'string', enum: via_act.map((act) => act.name) },
      result: RESULT,
      ledger: LEDGER_RANGE,
      receipt,
    },
    additionalProperties: false,
  };
  paths[ACT_PATH] = {
    post: {
      summary: 'Performs the named act (signed)',
      description:
        'The body names the act and carries its payload (see x-acts and /.well-known/agent-rules.json). The ' +
        'signature covers the canonical body with every declared default filled in. challenge_id and ' +
        `puzzle_solution answer a Proof of Machine challenge. ${REFUSALS_NOTE}`,
      operationId: 'act',
      security: SIGNED,
      requestBody: actRequestBody(via_act, request, payload_ref),
      responses: signedActResponses(
        envelope,
        "The act's result and, for an act that changes the state, where it landed on the ledger and the receipt of its first entry",
        ['UNKNOWN_ACT', ...via_act.flatMap(actGateCodes)],
        isLimited(ACT_PATH, via_act),
      ),
      'x-acts': Object.fromEntries(via_act.map((act) => [act.name, actExtension(act, payload_ref(act))])),
    },
  };
  for (const act of CATALOGUE) {
    if (!act.rest) continue;
    // The dedicated routes answer the result's own fields, with ledger and receipt beside them.
    const success: JsonSchema = {
      type: 'object',
      properties: { ledger: LEDGER_RANGE, receipt },
      additionalProperties: true,
      description: "The act's result fields, with ledger and receipt for a write",
    };
    const limited = ROUTE_LIMITED.has(act.rest.path) ? (['RATE_LIMITED'] as const) : [];
    paths[act.rest.path] = {
      post: {
        summary: act.summary,
        description: [SIGNERS[act.signer], REFUSALS_NOTE].filter(Boolean).join(' '),
        operationId: act.name,
        security: SIGNED,
        requestBody: { required: true, content: { 'application/json': { schema: payload_ref(act) } } },
        responses: signedActResponses(
          success,
          act.summary,
          [...actGateCodes(act), ...limited],
          isLimited(act.rest.path, [act]),
        ),
        'x-act': act.name,
      },
    };
  }
  return paths;
}
