import { openApiDocument } from '../../api/openapi.js';
import { ContractError } from './contract_error.js';
import { headerProblems, type AnswerHeaders } from './contract_headers.js';
import { mediaTypeOf } from './contract_media.js';
import { RouteTable, type Operation } from './contract_routes.js';
import { SchemaValidator } from './contract_schemas.js';

/**
 * One OpenAPI document as a contract: an answer (its status, media type, body and
 * headers) is held to the response its operation declares for that status.
 */

type Json = Record<string, any>;

export type { Contract };

class Contract {
  private readonly validator: SchemaValidator;
  private readonly routes: RouteTable;

  constructor(readonly document: Json) {
    this.validator = new SchemaValidator(document);
    this.routes = new RouteTable(document.paths as Record<string, Json>);
  }

  /** The operation serving a method and a concrete path, if the document has one. */
  operationOf(method: string, path: string): Operation | undefined {
    return this.routes.operationOf(method, path);
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
    const declared = this.routes.responseOf(method, path, status);
    if (!declared) return;
    // Whatever is wrong with the headers, the media type and the body is reported together, as one failure.
    const problems = headers ? headerProblems(this.validator, this.document, declared, headers) : [];
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
      const validate = this.validator.compile(`${declared.id} ${media}`, schema_holder.schema);
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
    const declared = this.routes.responseOf(method, path, status);
    if (!declared) return;
    const problems = headerProblems(this.validator, this.document, declared, headers);
    const declared_types = Object.keys((declared.response.content ?? {}) as Json);
    const media = mediaTypeOf(content_type);
    if (declared_types.length > 0 && media !== '' && !declared_types.includes(media))
      problems.push(`a ${media} body where the document declares ${declared_types.join(', ')}`);
    if (problems.length > 0) throw new ContractError(declared.name, problems.join('; '));
  }
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
