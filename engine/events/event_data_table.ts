import { z } from 'zod';
import { EVENT_TYPES } from './event_catalogue.js';
import { EVENT_DATA } from './event_data.js';

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
}

/**
 * docs/protocol.md's table of each event type's data fields, made from the schemas the
 * OpenAPI document serves (engine/events/event_data.ts): a field marked `?` may be
 * absent (older ledgers, or a variant without it); a variant's own fields are named
 * under its discriminator's value.
 */
export function eventDataTable(): string {
  const rows = EVENT_TYPES.map((event_type) => {
    const schema = z.toJSONSchema(EVENT_DATA[event_type], { io: 'output' }) as JsonSchema;
    return `| \`${event_type}\` | ${fieldsWords(schema)} |`;
  });
  return ['| event_type | data fields (`?`: may be absent) |', '|---|---|', ...rows].join('\n');
}

function fieldsWords(schema: JsonSchema): string {
  const variants = schema.oneOf ?? schema.anyOf;
  if (!variants) return fieldList(schema);
  return variants
    .map((variant) => {
      const tag = Object.entries(variant.properties ?? {}).find(([, property]) => property.const !== undefined);
      const name = tag ? `${tag[0]} \`${String(tag[1].const)}\`` : 'or';
      return `${name}: ${fieldList(variant, tag?.[0])}`;
    })
    .join('; ');
}

function fieldList(schema: JsonSchema, except?: string): string {
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {})
    .filter((field) => field !== except)
    .map((field) => `\`${field}\`${required.has(field) ? '' : '?'}`)
    .join(', ');
}
