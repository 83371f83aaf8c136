import { ContractError } from './contract_error.js';
import type { Declared } from './contract_routes.js';
import type { SchemaValidator } from './contract_schemas.js';

type Json = Record<string, any>;

/** An answer's headers as fetch (Headers) or node:http (IncomingHttpHeaders) gives them. */
export type AnswerHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * What is wrong with an answer's headers against those its response declares: one
 * declared required must be there, and one there must match its schema (read as
 * OpenAPI's simple style reads a scalar: a number where the schema wants one).
 * Content-Type is left to the media type check, as OpenAPI says.
 */
export function headerProblems(
  validator: SchemaValidator,
  document: Json,
  declared: Declared,
  headers: AnswerHeaders,
): string[] {
  const problems: string[] = [];
  for (const [name, declaration] of Object.entries((declared.response.headers ?? {}) as Record<string, Json>)) {
    if (name.toLowerCase() === 'content-type') continue;
    const header = headerObject(document, declaration);
    const value = headerValue(headers, name);
    if (value === undefined) {
      if (header.required === true) problems.push(`required header ${name} is missing`);
      continue;
    }
    if (!header.schema) continue;
    const validate = validator.compile(`${declared.id} header ${name}`, header.schema);
    if (!validate(simpleStyle(value, header.schema)))
      problems.push(`header ${name}: ${JSON.stringify(value)} ${validator.errorsText(validate, name)}`);
  }
  return problems;
}

/** A Header Object, its `$ref` into components.headers followed. */
function headerObject(document: Json, declaration: Json): Json {
  const ref = declaration.$ref as string | undefined;
  if (!ref) return declaration;
  const name = ref.replace(/^#\/components\/headers\//, '');
  const header = (document.components?.headers as Record<string, Json> | undefined)?.[name];
  if (!header) throw new ContractError(ref, 'a header reference the document does not hold');
  return header;
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
