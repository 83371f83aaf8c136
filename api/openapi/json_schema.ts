import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** The operations of one path, by lowercase method. */
export type PathItem = Record<string, JsonSchema>;

/**
 * The schemas several operations share, kept once under components.schemas. A zod
 * schema whose JSON form needs `$defs` (a recursive or registered schema) has them
 * moved here too: `#/$defs/...` would otherwise resolve against the document's root.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  add(name: string, schema: JsonSchema): JsonSchema {
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`two different schemas named ${name}`);
    }
    this.schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1). `input` is what a
   * caller may send (defaults optional, shown as `default`); `output` is what the
   * service answers with (every defaulted field present).
   */
  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    const { $schema: _dialect, $defs, ...rest } = converted;
    if (!$defs) return rest;
    for (const [name, definition] of Object.entries($defs as Record<string, JsonSchema>)) {
      this.add(name, rehomeRefs(definition) as JsonSchema);
    }
    return rehomeRefs(rest) as JsonSchema;
  }
}

function rehomeRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rehomeRefs);
  if (value === null || typeof value !== 'object') return value;
  const rehomed = Object.entries(value).map(([key, inner]) => {
    if (key !== '$ref' || typeof inner !== 'string') return [key, rehomeRefs(inner)];
    return [key, inner.replace(/^#\/\$defs\//, '#/components/schemas/')];
  });
  return Object.fromEntries(rehomed);
}
