import { ROUTE_DOCS, type RouteDoc } from './route_docs.js';
import { PAGE_ROUTE_DOCS } from './pages/page_docs.js';
import { LOG_ROUTE_DOCS } from './log/log_route_docs.js';
import { EVENT_ROUTE_DOCS } from './events/event_route_docs.js';
import { actPaths } from './openapi/acts.js';
import { declaredOperation } from './openapi/declared.js';
import { SchemaComponents, type JsonSchema, type PathItem } from './openapi/json_schema.js';
import { readPaths } from './openapi/reads.js';
import { HEADER_COMPONENTS } from './openapi/headers.js';
import { framedPage, withCacheControl } from './openapi/route_headers.js';
import { REFUSAL_SCHEMA, REPLICA_REDIRECT_SCHEMA, SECURITY_SCHEMES, VALIDATION_SCHEMA } from './openapi/responses.js';

/** Every route the document declares: those neither acts nor catalogue reads (the catalogue's pages among them). */
export const DECLARED_ROUTES: readonly RouteDoc[] = [
  ...ROUTE_DOCS,
  ...PAGE_ROUTE_DOCS.map(framedPage),
  ...LOG_ROUTE_DOCS.map(withCacheControl),
  ...EVENT_ROUTE_DOCS.map(withCacheControl),
];

/**
 * The OpenAPI 3.1 document, generated: the acts from the act catalogue, the public
 * reads from the read catalogue (whatever it holds), and the other routes from their
 * declarations (api/route_docs.ts). A declaration never overrides a catalogue entry
 * at the same method and path; test/openapi.test.ts names any such leftover. With
 * `public_url`, the document names it as its one server (as GET /api/v1/openapi.json serves it).
 */
export function openApiDocument(public_url?: string): JsonSchema {
  // Everything it is made from is fixed when the modules load: made once, served as is.
  built ??= buildDocument();
  if (public_url === undefined) return built;
  // The one server is this service's public address (PUBLIC_URL), never whatever Host a request names.
  let served = by_server.get(public_url);
  if (!served) {
    const { paths, components, ...head } = built;
    served = { ...head, servers: [{ url: public_url.replace(/\/+$/, '') }], paths, components };
    by_server.set(public_url, served);
  }
  return served;
}

let built: JsonSchema | undefined;
const by_server = new Map<string, JsonSchema>();

function buildDocument(): JsonSchema {
  const components = new SchemaComponents();
  components.add('Refusal', REFUSAL_SCHEMA);
  components.add('ValidationError', VALIDATION_SCHEMA);
  components.add('ReplicaRedirect', REPLICA_REDIRECT_SCHEMA);
  const paths: Record<string, PathItem> = { ...actPaths(components) };
  for (const [path, item] of Object.entries(readPaths(components))) paths[path] = { ...paths[path], ...item };
  for (const doc of DECLARED_ROUTES) {
    const method = doc.method.toLowerCase();
    if (paths[doc.path]?.[method]) continue;
    paths[doc.path] = { ...paths[doc.path], [method]: declaredOperation(doc, components) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera society',
      version: '0.1.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'A self-governing society for software agents. Signed requests carry X-Agent-Id, X-Nonce and ' +
        'X-Signature together (society-sig-v1, docs/protocol.md#nonces-and-signatures). Every refusal is ' +
        '{error, message, ...details} with the status of its code; a request that does not match its ' +
        'schema answers 422 {detail: [...]}.',
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: { schemas: components.schemas, headers: HEADER_COMPONENTS, securitySchemes: SECURITY_SCHEMES },
  };
}
