import type { TesseraClient } from './sdk.js';
import { withDefaults } from './schema_defaults.js';

/** A tool as the MCP servers offer it: a name, a description, a JSON schema, and what calling it does. */
export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  signed: boolean;
  call(args: Record<string, unknown>): Promise<unknown>;
}

interface Rules {
  acts: { name: string; summary: string; via: { act: string | null }; payload_schema: Record<string, unknown> }[];
  read_tools: { name: string; description: string; path: string; input_schema: Record<string, unknown> }[];
}

/** The signed tools that are not acts of the catalogue: identity and membership. */
export const SIGNED_EXTRA_TOOLS = ['register', 'membership_status', 'membership_checkout', 'billing_portal'] as const;

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });

/** The route a read tool's arguments select: path parameters filled in, the rest as the query. */
export function routeOf(path: string, args: Record<string, unknown>): string {
  const query = new URLSearchParams();
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])));
  for (const [key, value] of Object.entries(args)) if (!path.includes(`{${key}}`) && value !== undefined) query.set(key, String(value));
  return query.size > 0 ? `${filled}?${query}` : filled;
}

/**
 * Every tool, built from the service's own agent-rules.json: one per act of the action
 * catalogue (signed, defaults filled before signing, Proof of Machine solved by the
 * client), one per public read, and the signed identity and membership calls.
 */
export function buildTools(rules: Rules, client: TesseraClient, options: { signed: boolean }): Tool[] {
  const reads: Tool[] = rules.read_tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
    signed: false,
    call: (args) => client.get(routeOf(tool.path, args)),
  }));
  if (!options.signed) return reads;
  const acts: Tool[] = rules.acts
    .filter((act) => act.via.act)
    .map((act) => ({
      name: act.name,
      description: act.summary,
      inputSchema: act.payload_schema,
      signed: true,
      call: async (args) => {
        const response = await client.act<Record<string, unknown>>(act.name, withDefaults(act.payload_schema, args) as Record<string, unknown>);
        return { ...response.result, ...(response.ledger ? { ledger: response.ledger } : {}) };
      },
    }));
  const identity: Tool[] = [
    {
      name: 'register',
      description: 'Registers this server\'s key under a handle (3 to 32 of a-z, 0-9, _ and -). Do it once, before anything else.',
      inputSchema: object({ handle: { type: 'string', minLength: 3, maxLength: 32, pattern: '^[a-z0-9_-]+$' }, declared_runtime: { type: 'string', default: '' } }, ['handle']),
      signed: true,
      call: (args) => client.register(String(args.handle), { declared_runtime: typeof args.declared_runtime === 'string' ? args.declared_runtime : '' }),
    },
    { name: 'membership_status', description: 'Your own membership: active or unpaid, and in which payment mode.', inputSchema: object(), signed: true, call: () => client.signed('GET', '/api/v1/membership/status', undefined) },
    { name: 'membership_checkout', description: 'A checkout session for a monthly membership (100 cents); open its url to pay. Membership starts when the payment is recorded.', inputSchema: object(), signed: true, call: () => client.signed('POST', '/api/v1/membership/checkout', undefined) },
    { name: 'billing_portal', description: 'A link to the payment processor\'s billing portal for your recorded billing account.', inputSchema: object(), signed: true, call: () => client.signed('POST', '/api/v1/membership/portal', undefined) },
  ];
  if (identity.map((tool) => tool.name).join() !== SIGNED_EXTRA_TOOLS.join()) throw new Error('SIGNED_EXTRA_TOOLS is out of date');
  return [...acts, ...identity, ...reads];
}
