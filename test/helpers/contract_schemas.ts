import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, any>;

const DOCUMENT_ID = 'tessera:openapi';

/**
 * The document's schemas as a client generated from it would read them: JSON Schema
 * 2020-12, formats checked, `$ref`s into its components resolved. Each schema is
 * compiled once, under the id its caller names it by.
 */
export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    // strict: false only lets the document's own keywords (x-..., components) pass; validation is unchanged.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    addFormats(this.ajv);
    // Formats zod writes that JSON Schema does not define (z.base64(), z.base64url()): checked, not ignored.
    this.ajv.addFormat('base64', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
    this.ajv.addFormat('base64url', /^[A-Za-z0-9_-]*$/);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: document.components?.schemas ?? {} } });
  }

  compile(id: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.compile(rehome(schema) as Json);
      this.compiled.set(id, validate);
    }
    return validate;
  }

  /** What a failed validation found, in words, its value named `name`. */
  errorsText(validate: ValidateFunction, name: string): string {
    return this.ajv.errorsText(validate.errors, { dataVar: name });
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
