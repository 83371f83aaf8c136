import { RATE_LIMIT_HEADERS } from './responses.js';
import { isLimitedRead } from '../read_limiter.js';
import type { JsonSchema, PathItem, SchemaComponents } from './json_schema.js';
import { ALWAYS_CODES, refusalResponses, textOrBinary } from './responses.js';
import { type ReadDefinition } from '../../engine/index.js';
import { SERVED_READS } from '../served_reads.js';

/** The `{name}`s of an OpenAPI path. */
export function pathParameterNames(path: string): Set<string> {
  return new Set([...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!));
}

/**
 * OpenAPI parameters from one object schema of path and query values (its input form:
 * defaults and limits as the caller sees them). Names in the path are path
 * parameters, always required; the others are query parameters.
 */
export function parametersOf(path: string, args: JsonSchema): JsonSchema[] {
  const in_path = pathParameterNames(path);
  const properties = (args.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((args.required ?? []) as string[]);
  for (const name of in_path) if (!properties[name]) throw new Error(`${path}: path parameter ${name} has no schema`);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: in_path.has(name) ? 'path' : 'query',
    required: in_path.has(name) || required.has(name),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
}

const ETAG = {
  ETag: {
    description:
      'The content hash, if any; with -gzip or -br inside the quotes when the answer is compressed: send it back in If-None-Match',
    schema: { type: 'string' },
  },
};

/** The 200 of a read, and for bytes the 304 a client holding the current ETag gets instead. */
function readAnswers(read: ReadDefinition, components: SchemaComponents): Record<string, JsonSchema> {
  const limit_headers = isLimitedRead('GET', read.path) ? RATE_LIMIT_HEADERS : {};
  if (read.response.kind === 'bytes') {
    const { media_type, description } = read.response;
    return {
      '200': {
        description,
        headers: { ...ETAG, ...limit_headers },
        content: { [media_type]: { schema: textOrBinary(media_type) } },
      },
      '304': { description: 'Unchanged since the If-None-Match sent: no body' },
    };
  }
  const schema = components.of(read.response.schema, 'output');
  return {
    '200': {
      description: read.title,
      ...(Object.keys(limit_headers).length > 0 ? { headers: limit_headers } : {}),
      content: { 'application/json': { schema } },
    },
  };
}

/**
 * The GET operation of a catalogue read. A read also served under other paths
 * (`aliases`, when a read declares them) gets the same operation at each.
 */
function readOperation(read: ReadDefinition, path: string, components: SchemaComponents, id: string): JsonSchema {
  const parameters = parametersOf(path, components.of(read.args, 'input'));
  // Every read may be refused by the read limiter; one with parameters may answer 422.
  const validated = parameters.length > 0 ? ['VALIDATION_FAILED'] : [];
  const codes = [...read.refusals, ...validated, 'RATE_LIMITED', ...ALWAYS_CODES];
  return {
    summary: read.title,
    description: read.summary,
    operationId: id,
    // Every catalogue read is public.
    security: [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { ...readAnswers(read, components), ...refusalResponses(codes) },
    ...(read.tool ? { 'x-mcp-tool': read.name } : {}),
  };
}

/** Every read of the read catalogue, whatever it holds: a read added there is documented with no more work. */
export function readPaths(
  components: SchemaComponents,
  reads: readonly ReadDefinition[] = SERVED_READS,
): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const read of reads) {
    const aliases = read.aliases;
    for (const [index, path] of [read.path, ...aliases].entries()) {
      const id = index === 0 ? read.name : `${read.name}_${index + 1}`;
      paths[path] = { get: readOperation(read, path, components, id) };
    }
  }
  return paths;
}
