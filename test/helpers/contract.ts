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
  item: Json;
}

/** Thrown when an answer does not match the document: the operation, the status and what Ajv found. */
export class ContractError extends Error {
  constructor(
    readonly where: string,
    readonly errors: unknown,
  ) {
    super(`${where} does not match the OpenAPI document: ${JSON.stringify(errors, null, 1)}`);
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
        item,
      }))
      .sort((a, b) => a.parameters - b.parameters);
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

  check(method: string, path: string, status: number, content_type: string | null, body: unknown): void {
    const found = this.operationOf(method, path);
    // A path or a method the document does not serve (a 404 or 405 to a made-up request): nothing to hold it to.
    if (!found) return;
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
    const media = mediaTypeOf(content_type);
    const content = (response.content ?? {}) as Record<string, Json>;
    const declared = content[media] ?? Object.entries(content).find(([type]) => isJson(type))?.[1];
    if (!declared)
      throw new ContractError(
        name,
        `a ${media} body where the document declares ${Object.keys(content).join(', ') || 'none'}`,
      );
    if (!declared.schema) return;
    const id = `${found.method} ${found.template} ${key} ${media}`;
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.compile(rehome(declared.schema) as Json);
      this.compiled.set(id, validate);
    }
    if (!validate(body)) throw new ContractError(name, validate.errors);
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

/**
 * Checks one answer against the document: the operation whose path template matches
 * `path` (a concrete path, query excluded), its response for `status` (or `default`),
 * and for a JSON body its schema. Throws a ContractError naming the operation, the
 * status and Ajv's errors; an answer to a path or method the document does not serve
 * is not checked.
 */
export function checkAnswer(
  method: string,
  path: string,
  status: number,
  content_type: string | null,
  body: unknown,
): void {
  theContract().check(method, path, status, content_type, body);
}

// The registry and the original fetch live on globalThis: with vitest's isolate: false the
// setup file runs again before each file, and this module may be loaded more than once.
interface Watch {
  origins: Map<string, number>;
  failures: string[];
  original: typeof fetch;
}
const WATCH = Symbol.for('tessera.test.contract');

function watch(): Watch {
  const holder = globalThis as unknown as Record<symbol, Watch | undefined>;
  holder[WATCH] ??= { origins: new Map(), failures: [], original: globalThis.fetch };
  return holder[WATCH]!;
}

/** Answers from this society (its origin) are checked from now until unwatchAnswers. */
export function watchAnswers(url: string): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  origins.set(origin, (origins.get(origin) ?? 0) + 1);
}

export function unwatchAnswers(url: string): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  const count = (origins.get(origin) ?? 0) - 1;
  if (count > 0) origins.set(origin, count);
  else origins.delete(origin);
}

/** Mismatches found since the last call, emptied: the setup file fails the test that received them. */
export function takeContractFailures(): string[] {
  return watch().failures.splice(0);
}

/**
 * Checks an answer's text if it came from a watched society with a JSON content type;
 * a mismatch is remembered for the test's end and thrown. For helpers that do not go
 * through fetch (test/helpers/http_from.ts).
 */
export function checkWatchedAnswer(
  url: URL,
  method: string,
  status: number,
  content_type: string | null,
  text: string,
): void {
  const state = watch();
  if (!state.origins.has(url.origin) || !isJson(content_type) || method.toUpperCase() === 'HEAD' || text === '') return;
  try {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ContractError(
        `${method} ${url.pathname} answering ${status}`,
        'a JSON content type on a body that is not JSON',
      );
    }
    checkAnswer(method, url.pathname, status, content_type, body);
  } catch (error) {
    state.failures.push(String(error instanceof Error ? error.message : error));
    throw error;
  }
}

/**
 * Wraps globalThis.fetch (once): a JSON answer from a watched society is read from a
 * clone and checked before the caller gets it; a mismatch rejects the fetch and is
 * remembered for the test's end (in case a caller catches it, as a retrying client would).
 */
export function installContractCheck(): void {
  const state = watch();
  if ((globalThis.fetch as { contract_checked?: boolean }).contract_checked) return;
  const original = state.original;
  const checked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!state.origins.has(url.origin) || !isJson(response.headers.get('content-type'))) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method === 'HEAD') return response;
    checkWatchedAnswer(
      url,
      method,
      response.status,
      response.headers.get('content-type'),
      await response.clone().text(),
    );
    return response;
  };
  Object.assign(checked, { contract_checked: true });
  globalThis.fetch = checked as typeof fetch;
}
