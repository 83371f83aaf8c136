import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../api/openapi.js';

/**
 * Answers checked against the contract (issue 31): every JSON answer a test receives
 * from a test society is validated against the service's own OpenAPI document, built
 * in-process from the code GET /api/v1/openapi.json serves, as a client generated from
 * that document would read it (JSON Schema 2020-12, formats checked).
 */

type Json = Record<string, any>;

interface Operation {
  method: string;
  template: string;
  operation: Json;
}

interface Template {
  template: string;
  pattern: RegExp;
  /** Path parameters: a literal segment matches before a parameter does. */
  parameters: number;
  /** Characters outside parameters: among as many parameters, `/motions/{id}.md` matches before `/motions/{id}`. */
  literal: number;
  item: Json;
}

/** The response an operation declares for one status, and how to name it. */
interface Declared {
  name: string;
  /** The operation and the response key, for the compiled schemas' cache. */
  id: string;
  response: Json;
}

/** An answer's headers as fetch (Headers) or node:http (IncomingHttpHeaders) gives them. */
export type AnswerHeaders = Headers | Record<string, string | string[] | undefined>;

/** Thrown when an answer does not match the document: the operation, the status and what Ajv found. */
export class ContractError extends Error {
  constructor(
    readonly where: string,
    readonly errors: unknown,
  ) {
    super(
      `${where} does not match the OpenAPI document: ${typeof errors === 'string' ? errors : JSON.stringify(errors, null, 1)}`,
    );
    this.name = 'ContractError';
  }
}

const DOCUMENT_ID = 'tessera:openapi';
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'options', 'head', 'trace']);

export type { Contract };

class Contract {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    // strict: false only lets the document's own keywords (x-..., components) pass; validation is unchanged.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    addFormats(this.ajv);
    // Formats zod writes that JSON Schema does not define (z.base64(), z.base64url()): checked, not ignored.
    this.ajv.addFormat('base64', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
    this.ajv.addFormat('base64url', /^[A-Za-z0-9_-]*$/);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components?.schemas ?? {} } });
    this.templates = Object.entries(document.paths as Record<string, Json>)
      .map(([template, item]) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/(\{\w+\})/)
            .map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
            .join('')}$`,
        ),
        parameters: (template.match(/\{\w+\}/g) ?? []).length,
        literal: template.replace(/\{\w+\}/g, '').length,
        item,
      }))
      .sort((a, b) => a.parameters - b.parameters || b.literal - a.literal);
  }

  /** The operation serving a method and a concrete path, if the document has one. */
  operationOf(method: string, path: string): Operation | undefined {
    const lower = method.toLowerCase();
    for (const { template, pattern, item } of this.templates) {
      if (!pattern.test(path)) continue;
      const operation = item[lower];
      if (operation && METHODS.has(lower)) return { method: method.toUpperCase(), template, operation };
    }
    return undefined;
  }

  /** The response the document declares for this answer, or undefined for a path or method it does not serve. */
  private responseOf(method: string, path: string, status: number): Declared | undefined {
    const found = this.operationOf(method, path);
    // A path or a method the document does not serve (a 404 or 405 to a made-up request): nothing to hold it to.
    if (!found) return undefined;
    const name = `${found.method} ${found.template} (${found.operation.operationId ?? '?'}) answering ${status}`;
    const responses = (found.operation.responses ?? {}) as Record<string, Json>;
    const key = responses[String(status)]
      ? String(status)
      : responses[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : 'default';
    const response = responses[key];
    if (!response)
      throw new ContractError(
        name,
        `status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`,
      );
    return { name, id: `${found.method} ${found.template} ${key}`, response };
  }

  /**
   * Checks a JSON answer: its status, its media type (one the response declares), its
   * body against that media type's schema and, when given, its headers.
   */
  check(
    method: string,
    path: string,
    status: number,
    content_type: string | null,
    body: unknown,
    headers?: AnswerHeaders,
  ): void {
    const declared = this.responseOf(method, path, status);
    if (!declared) return;
    // Whatever is wrong with the headers, the media type and the body is reported together, as one failure.
    const problems = headers ? this.headerProblems(declared, headers) : [];
    const media = mediaTypeOf(content_type);
    const content = (declared.response.content ?? {}) as Record<string, Json>;
    // The exact media type: a client picks its parser by it, so application/json where
    // application/problem+json is declared (or the reverse) is a mismatch too.
    const schema_holder = content[media];
    if (!schema_holder)
      problems.push(
        `a ${media || 'untyped'} body where the document declares ${Object.keys(content).join(', ') || 'none'}`,
      );
    else if (schema_holder.schema) {
      const validate = this.compile(`${declared.id} ${media}`, schema_holder.schema);
      if (!validate(body))
        throw new ContractError(
          declared.name,
          problems.length > 0 ? `${problems.join('; ')}; ${JSON.stringify(validate.errors, null, 1)}` : validate.errors,
        );
    }
    if (problems.length > 0) throw new ContractError(declared.name, problems.join('; '));
  }

  /**
   * Checks an answer whose body is not read (text, bytes, an empty body): its headers, and
   * its media type when the response declares a body (a redirect's courtesy text, and a
   * 304's or a 202's nothing, have none declared to hold them to).
   */
  checkUnreadBody(method: string, path: string, status: number, content_type: string | null, headers: AnswerHeaders) {
    const declared = this.responseOf(method, path, status);
    if (!declared) return;
    const problems = this.headerProblems(declared, headers);
    const declared_types = Object.keys((declared.response.content ?? {}) as Json);
    const media = mediaTypeOf(content_type);
    if (declared_types.length > 0 && media !== '' && !declared_types.includes(media))
      problems.push(`a ${media} body where the document declares ${declared_types.join(', ')}`);
    if (problems.length > 0) throw new ContractError(declared.name, problems.join('; '));
  }

  /**
   * What is wrong with an answer's headers against those its response declares: one
   * declared required must be there, and one there must match its schema (read as
   * OpenAPI's simple style reads a scalar: a number where the schema wants one).
   * Content-Type is left to the media type check, as OpenAPI says.
   */
  private headerProblems(declared: Declared, headers: AnswerHeaders): string[] {
    const problems: string[] = [];
    for (const [name, declaration] of Object.entries((declared.response.headers ?? {}) as Record<string, Json>)) {
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.headerObject(declaration);
      const value = headerValue(headers, name);
      if (value === undefined) {
        if (header.required === true) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const validate = this.compile(`${declared.id} header ${name}`, header.schema);
      if (!validate(simpleStyle(value, header.schema)))
        problems.push(
          `header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors, { dataVar: name })}`,
        );
    }
    return problems;
  }

  /** A Header Object, its `$ref` into components.headers followed. */
  private headerObject(declaration: Json): Json {
    const ref = declaration.$ref as string | undefined;
    if (!ref) return declaration;
    const name = ref.replace(/^#\/components\/headers\//, '');
    const header = (this.document.components?.headers as Record<string, Json> | undefined)?.[name];
    if (!header) throw new ContractError(ref, 'a header reference the document does not hold');
    return header;
  }

  private compile(id: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.compile(rehome(schema) as Json);
      this.compiled.set(id, validate);
    }
    return validate;
  }
}

/** `$ref`s into the document's components, pointed at the document registered with Ajv. */
function rehome(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rehome);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/')
        ? [key, `${DOCUMENT_ID}${inner}`]
        : [key, rehome(inner)],
    ),
  );
}

/** A header's value by its name, whatever its case; several values joined as fetch joins them. */
function headerValue(headers: AnswerHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A header's text as OpenAPI's simple style gives a scalar to its schema: a number or a boolean when that is its type. */
function simpleStyle(value: string, schema: Json): unknown {
  const type = schema.type as string | undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function mediaTypeOf(content_type: string | null): string {
  return (content_type ?? '').split(';')[0]!.trim().toLowerCase();
}

/** application/json and the +json types. */
export function isJson(content_type: string | null): boolean {
  const media = mediaTypeOf(content_type);
  return media === 'application/json' || media.endsWith('+json');
}

let contract: Contract | undefined;

/** A contract from any document (a test holds an older form of the document to the same answers). */
export function contractOf(document: Json): Contract {
  return new Contract(document);
}

/** The contract, made once from the document the service serves. */
export function theContract(): Contract {
  contract ??= new Contract(openApiDocument() as Json);
  return contract;
}

const contracts = new WeakMap<Json, Contract>();

/**
 * The contract of a document a server serves (a child server's, from the build it runs):
 * the in-process contract when the two documents are the same text, so their compiled
 * schemas are shared; its own otherwise, so a server is held to what it serves.
 */
export function contractFor(document: Json): Contract {
  let found = contracts.get(document);
  if (!found) {
    const same = JSON.stringify(document) === JSON.stringify(theContract().document);
    found = same ? theContract() : new Contract(document);
    contracts.set(document, found);
  }
  return found;
}

/**
 * Checks one answer against the document: the operation whose path template matches
 * `path` (a concrete path, query excluded), its response for `status` (or `default`),
 * for a JSON body its media type and schema, and when given its headers. Throws a
 * ContractError naming the operation, the status and what is wrong; an answer to a
 * path or method the document does not serve is not checked.
 */
export function checkAnswer(
  method: string,
  path: string,
  status: number,
  content_type: string | null,
  body: unknown,
  headers?: AnswerHeaders,
): void {
  theContract().check(method, path, status, content_type, body, headers);
}

// The registry and the original fetch live on globalThis: with vitest's isolate: false the
// setup file runs again before each file, and this module may be loaded more than once.
interface Watched {
  /** Societies registered at this origin and not yet gone (a port is reused). */
  count: number;
  contract: Contract;
}
interface Watch {
  origins: Map<string, Watched>;
  failures: string[];
  original: typeof fetch;
}
const WATCH = Symbol.for('tessera.test.contract');

function watch(): Watch {
  const holder = globalThis as unknown as Record<symbol, Watch | undefined>;
  holder[WATCH] ??= { origins: new Map(), failures: [], original: globalThis.fetch };
  return holder[WATCH]!;
}

/**
 * Answers from this society (its origin) are checked from now until unwatchAnswers:
 * against `document` when given (what that server serves), the in-process one otherwise.
 */
export function watchAnswers(url: string, document?: Json): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  const contract = document ? contractFor(document) : theContract();
  origins.set(origin, { count: (origins.get(origin)?.count ?? 0) + 1, contract });
}

export function unwatchAnswers(url: string): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  const watched = origins.get(origin);
  if (watched && watched.count > 1) watched.count -= 1;
  else origins.delete(origin);
}

/** Mismatches found since the last call, emptied: the setup file fails the test that received them. */
export function takeContractFailures(): string[] {
  return watch().failures.splice(0);
}

/**
 * Checks an answer if it came from a watched society: its headers always, and its
 * text when its content type is JSON; a mismatch is remembered for the test's end and
 * thrown. For helpers that do not go through fetch (test/helpers/http_from.ts), which
 * pass the headers they got to have them checked too.
 */
export function checkWatchedAnswer(
  url: URL,
  method: string,
  status: number,
  content_type: string | null,
  text: string,
  headers?: AnswerHeaders,
): void {
  const state = watch();
  const watched = state.origins.get(url.origin);
  // A HEAD answer has no body to hold to the GET's, and the document declares no HEAD.
  if (!watched || method.toUpperCase() === 'HEAD') return;
  try {
    if (!isJson(content_type) || text === '') {
      if (headers) watched.contract.checkUnreadBody(method, url.pathname, status, content_type, headers);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ContractError(
        `${method} ${url.pathname} answering ${status}`,
        'a JSON content type on a body that is not JSON',
      );
    }
    watched.contract.check(method, url.pathname, status, content_type, body, headers);
  } catch (error) {
    state.failures.push(String(error instanceof Error ? error.message : error));
    throw error;
  }
}

/**
 * Wraps globalThis.fetch (once): an answer from a watched society is checked before the
 * caller gets it, its headers and (read from a clone) its JSON body; a mismatch rejects
 * the fetch and is remembered for the test's end (in case a caller catches it, as a
 * retrying client would).
 */
export function installContractCheck(): void {
  const state = watch();
  if ((globalThis.fetch as { contract_checked?: boolean }).contract_checked) return;
  const original = state.original;
  const checked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    // The answer's own address: a redirect followed (a read replica's 307) ends at the writer.
    const url = new URL(response.url || (input instanceof Request ? input.url : String(input)));
    if (!state.origins.has(url.origin)) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const content_type = response.headers.get('content-type');
    const text = isJson(content_type) && method !== 'HEAD' ? await response.clone().text() : '';
    checkWatchedAnswer(url, method, response.status, content_type, text, response.headers);
    return response;
  };
  Object.assign(checked, { contract_checked: true });
  globalThis.fetch = checked as typeof fetch;
}
