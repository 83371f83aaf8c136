import { alwaysSent, cacheControlHeaders, notModifiedHeaders, RATE_LIMIT_HEADERS } from './headers.js';
import { isRateLimitedRoute, limitedResponses } from './rate_limited.js';
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
      'The content hash; with -gzip or -br inside the quotes when the answer is compressed: send it back in If-None-Match',
    required: true,
    schema: { type: 'string' },
  },
};

/** Bytes are kept by a client and revalidated by their ETag (api/read_mount.ts bytesAnswers). */
const REVALIDATED = cacheControlHeaders('no-cache: keep the bytes, and revalidate them with If-None-Match');

/** A read whose answer can no longer change (a full ledger page, a past charter version) says so. */
const IMMUTABLE_ONCE_FINAL = cacheControlHeaders(
  'public, max-age=31536000, immutable when this answer can no longer change; absent otherwise',
);

/** The 200 of a read, and for bytes the 304 a client holding the current ETag gets instead. */
function readAnswers(read: ReadDefinition, components: SchemaComponents): Record<string, JsonSchema> {
  // The read limiter's standing rides on every answer it let through.
  const limit_headers = isRateLimitedRoute('GET', read.path) ? alwaysSent(RATE_LIMIT_HEADERS) : {};
  if (read.response.kind === 'bytes') {
    const { media_type, description } = read.response;
    const headers = { ...ETAG, ...REVALIDATED, ...limit_headers };
    return {
      '200': { description, headers, content: { [media_type]: { schema: textOrBinary(media_type) } } },
      '304': { description: 'Unchanged since the If-None-Match sent: no body', headers: notModifiedHeaders(headers) },
    };
  }
  const schema = components.of(read.response.schema, 'output');
  const headers = { ...(read.immutable ? IMMUTABLE_ONCE_FINAL : {}), ...limit_headers };
  return {
    '200': {
      description: read.title,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
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
    responses: limitedResponses(isRateLimitedRoute('GET', path), {
      ...readAnswers(read, components),
      ...refusalResponses(codes),
    }),
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
