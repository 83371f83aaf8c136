import { servedAetherFeed } from './aether_routes.js';
import { type ReadDefinition, READ_CATALOGUE } from '../engine/index.js';

/** Reads whose answer api completes with what only render/ may produce (engine/ never imports render/). */
const RENDERED: readonly ReadDefinition[] = [servedAetherFeed];

/**
 * The reads as this service serves them: the read catalogue, each read as declared or,
 * where api renders part of its answer, as completed here (its response schema says
 * so). The routes, the MCP read tools, agent-rules.json and OpenAPI are all built
 * from this one list, so none of them can disagree about an answer.
 */
export const SERVED_READS: readonly ReadDefinition[] = READ_CATALOGUE.map(
  (read) => RENDERED.find((rendered) => rendered.name === read.name) ?? read,
);
