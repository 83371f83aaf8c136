type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  default?: unknown;
  const?: unknown;
};

/**
 * Fills in the declared defaults a JSON Schema gives for fields the caller left out,
 * recursively (objects, array items, and the variant of a union whose constants match).
 * What is signed is the body with its defaults filled in, so a client must do this.
 */
export function withDefaults(schema: Schema | undefined, value: unknown): unknown {
  if (!schema || value === null || value === undefined) return value;
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    const match = variants.find((variant) =>
      Object.entries(variant.properties ?? {}).every(
        ([key, property]) =>
          property.const === undefined || (value as Record<string, unknown>)?.[key] === property.const,
      ),
    );
    return match ? withDefaults(match, value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => withDefaults(schema.items, item));
  if (typeof value !== 'object' || !schema.properties) return value;
  const filled: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, property] of Object.entries(schema.properties)) {
    if (filled[key] === undefined) {
      if ('default' in property) filled[key] = structuredClone(property.default);
    } else filled[key] = withDefaults(property, filled[key]);
  }
  return filled;
}
