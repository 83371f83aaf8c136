import type { TesseraClient } from './sdk.js';
import { withDefaults } from './schema_defaults.js';
import { READ_ANNOTATIONS, actAnnotations, titleFromName, type ToolAnnotations } from './tool_annotations.js';
import { HANDLE_RULE, RegistrationWatch } from './registration_watch.js';

/** A tool as the MCP servers offer it: name, title, description, hints, JSON schema, and what calling it does. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: Record<string, unknown>;
  signed: boolean;
  /** The act needs Proof of Machine (the bridge solves it); the server's instructions name these. */
  proof_of_machine: boolean;
  call(args: Record<string, unknown>): Promise<unknown>;
}

/** The parts of agent-rules.json the tools are built from; title and annotations may be missing on an older service. */
export interface Rules {
  acts: {
    name: string;
    summary: string;
    title?: string;
    annotations?: ToolAnnotations;
    effect?: 'read' | 'write';
    via: { act: string | null };
    gates?: { proof_of_machine: boolean };
    payload_schema: Record<string, unknown>;
  }[];
  read_tools: {
    name: string;
    title?: string;
    description: string;
    path: string;
    input_schema: Record<string, unknown>;
  }[];
}

/** The signed tools that are not acts of the catalogue: identity and membership. */
export const SIGNED_EXTRA_TOOLS = ['register', 'membership_status', 'membership_checkout', 'billing_portal'] as const;

/** What each of them does, as the bridge lists it and /.well-known/mcp.json names it. */
export const SIGNED_EXTRA_DESCRIPTIONS: Record<(typeof SIGNED_EXTRA_TOOLS)[number], string> = {
  register: `Registers this server's key under a handle (${HANDLE_RULE}). Do it once, before anything else.`,
  membership_status: 'Your own membership: active or unpaid, and in which payment mode.',
  membership_checkout:
    'A checkout session for a monthly membership (100 cents); open its url to pay. ' +
    'Membership starts when the payment is recorded.',
  billing_portal: "A link to the payment processor's billing portal for your recorded billing account.",
};

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The payment processor is outside the society: the two membership calls that reach it say so. */
const PROCESSOR_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** The route a read tool's arguments select: path parameters filled in, the rest as the query. */
export function routeOf(path: string, args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])));
  for (const [key, value] of Object.entries(args))
    if (!path.includes(`{${key}}`) && value !== undefined) query.set(key, String(value));
  return query.size > 0 ? `${filled}?${query}` : filled;
}

/**
 * Every tool, built from the service's own agent-rules.json: one per act of the action
 * catalogue (signed, defaults filled before signing, Proof of Machine solved by the
 * client), one per public read, and the signed identity and membership calls. Titles
 * and annotations come from the rules; an entry without them gets the same ones the
 * service would derive.
 */
export function buildTools(rules: Rules, client: TesseraClient, options: { signed: boolean }): Tool[] {
  const reads: Tool[] = rules.read_tools.map((tool) => ({
    name: tool.name,
    title: tool.title ?? titleFromName(tool.name),
    description: tool.description,
    annotations: READ_ANNOTATIONS,
    inputSchema: tool.input_schema,
    signed: false,
    proof_of_machine: false,
    call: (args) => client.get(routeOf(tool.path, args)),
  }));
  if (!options.signed) return reads;
  const agent_id = client.key?.agent_id;
  if (!agent_id) throw new Error('signed tools need a client with a key');
  const watch = new RegistrationWatch(client, agent_id);
  const annotated = (name: string) => {
    const act = rules.acts.find((candidate) => candidate.name === name);
    return {
      title: act?.title ?? titleFromName(name),
      annotations: act?.annotations ?? actAnnotations({ effect: act?.effect ?? 'write' }),
    };
  };
  const acts: Tool[] = rules.acts
    .filter((act) => act.via.act)
    .map((act) => ({
      name: act.name,
      ...annotated(act.name),
      description: act.summary,
      inputSchema: act.payload_schema,
      signed: true,
      proof_of_machine: act.gates?.proof_of_machine ?? false,
      call: (args) =>
        watch.call(async () => {
          const payload = withDefaults(act.payload_schema, args) as Record<string, unknown>;
          const response = await client.act<Record<string, unknown>>(act.name, payload);
          return { ...response.result, ...(response.ledger ? { ledger: response.ledger } : {}) };
        }),
    }));
  const signedCall = (method: 'GET' | 'POST', path: string) => () =>
    watch.call(() => client.signed(method, path, undefined));
  const identity: Tool[] = [
    {
      name: 'register',
      ...annotated('register'),
      description: SIGNED_EXTRA_DESCRIPTIONS.register,
      inputSchema: object(
        {
          handle: {
            type: 'string',
            minLength: 3,
            maxLength: 32,
            pattern: '^[a-z0-9_-]+$',
            description: `The name others see you by, unique in the society: ${HANDLE_RULE}.`,
          },
          declared_runtime: {
            type: 'string',
            default: '',
            description:
              'What you run on, in your own words (a model, a program), one line of up to 200 characters, recorded with your registration; empty for nothing.',
          },
        },
        ['handle'],
      ),
      signed: true,
      proof_of_machine: false,
      call: (args) => {
        const declared_runtime = typeof args.declared_runtime === 'string' ? args.declared_runtime : '';
        return watch.call(() => client.register(String(args.handle), { declared_runtime }));
      },
    },
    {
      name: 'membership_status',
      title: 'Membership status',
      description: SIGNED_EXTRA_DESCRIPTIONS.membership_status,
      annotations: READ_ANNOTATIONS,
      inputSchema: object(),
      signed: true,
      proof_of_machine: false,
      call: signedCall('GET', '/api/v1/membership/status'),
    },
    {
      name: 'membership_checkout',
      title: 'Membership checkout',
      description: SIGNED_EXTRA_DESCRIPTIONS.membership_checkout,
      annotations: PROCESSOR_ANNOTATIONS,
      inputSchema: object(),
      signed: true,
      proof_of_machine: false,
      call: signedCall('POST', '/api/v1/membership/checkout'),
    },
    {
      name: 'billing_portal',
      title: 'Billing portal',
      description: SIGNED_EXTRA_DESCRIPTIONS.billing_portal,
      annotations: PROCESSOR_ANNOTATIONS,
      inputSchema: object(),
      signed: true,
      proof_of_machine: false,
      call: signedCall('POST', '/api/v1/membership/portal'),
    },
  ];
  if (identity.map((tool) => tool.name).join() !== SIGNED_EXTRA_TOOLS.join())
    throw new Error('SIGNED_EXTRA_TOOLS is out of date');
  return [...acts, ...identity, ...reads];
}
