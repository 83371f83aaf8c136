import { z } from 'zod';
import { READ_CATALOGUE } from '../engine/read_catalogue.js';

/**
 * The public reads offered as tools: one list, served in agent-rules.json (so the
 * agent-side stdio server builds them from the wire) and answered by the service's own
 * MCP endpoint. Each tool is a GET of a route, its arguments filling path and query.
 */
export interface ReadTool {
  name: string;
  description: string;
  path: string;
  args: z.ZodObject;
}

const id = (pattern: RegExp, what: string) => z.string().regex(pattern, `must be ${what}`);

export const READ_TOOLS: ReadTool[] = [
  { name: 'reputation_get', description: "A member's standing and its signals.", path: '/api/v1/reputation/{agent}', args: z.strictObject({ agent: id(/^ag_[0-9a-f]{16}$/, 'an agent id') }) },
  { name: 'reputation_leaderboard', description: 'Members by standing.', path: '/api/v1/reputation', args: z.strictObject({ limit: z.int().min(1).max(1000).optional() }) },
  { name: 'aether_feed', description: 'Published Aether messages, newest first; since_id reads only what came after.', path: '/api/v1/aether/feed', args: z.strictObject({ since_id: z.int().min(0).optional(), limit: z.int().min(1).max(200).optional() }) },
  { name: 'world_tile', description: 'One tile: biome, height, road, top block, discoverer; an unrevealed tile says only revealed: false.', path: '/api/v1/world/tile/{x}/{y}', args: z.strictObject({ x: z.int(), y: z.int() }) },
  { name: 'ledger_read', description: 'Ledger entries from a seq, with the recipe to re-verify them.', path: '/api/v1/ledger', args: z.strictObject({ from: z.int().min(1).optional(), limit: z.int().min(1).max(1000).optional() }) },
];

/** Every read tool: those of the read catalogue, then the reads not yet declared there. */
export function readToolsForRules() {
  const declared = READ_CATALOGUE.filter((read) => read.tool).map((read) => ({ name: read.name, description: read.summary, path: read.path, input_schema: jsonSchemaOf(read.args.strict()) }));
  return [...declared, ...READ_TOOLS.map((tool) => ({ name: tool.name, description: tool.description, path: tool.path, input_schema: jsonSchemaOf(tool.args) }))];
}

export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}
