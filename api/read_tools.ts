import { z } from 'zod';
import { SERVED_READS } from './served_reads.js';
import { type ReadDefinition } from '../engine/index.js';

/** The reads offered as MCP tools: the JSON reads of the catalogue that are declared tools. */
export const READ_TOOLS: readonly ReadDefinition[] = SERVED_READS.filter(
  (read) => read.tool && read.response.kind === 'json',
);

/**
 * The read tools as agent-rules.json serves them (so the agent-side stdio server
 * builds them from the wire): a tool is a GET of `path`, its arguments filling the
 * path parameters and the query. The input schema is strict: a tool names its
 * arguments exactly, where a route ignores unknown query keys.
 */
export function readToolsForRules() {
  return READ_TOOLS.map((read) => ({
    name: read.name,
    title: read.title,
    description: read.summary,
    path: read.path,
    input_schema: jsonSchemaOf(read.args.strict()),
  }));
}

export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}
