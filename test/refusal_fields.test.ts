import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** A refusal's body is {error, message, ...details}; a tool result adds http_status and hint. */
const RESERVED_FIELDS = ['error', 'message', 'status', 'http_status'];

const sources = (folder: string): string[] =>
  readdirSync(new URL(`../${folder}`, import.meta.url), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file));

/** The field names of the details object literal in each refuse(...) or RefusalError.of(...) call of a file. */
function detailFields(text: string): { call: string; fields: string[] }[] {
  return [...text.matchAll(/(?:refuse|RefusalError\.of)\(\s*'[A-Z_]+'\s*,[\s\S]*?\);/g)].map(([call]) => ({
    call: call.slice(0, 120),
    fields: [...call.matchAll(/(?<=[{,]\s*)\w+(?=\s*[:,}])/g)].map((match) => match[0]),
  }));
}

describe('the fields of a refusal', () => {
  it('finds the details of a refusal that would collide (the check itself works)', () => {
    const colliding = "return refuse('MOTION_CLOSED', `closed`, { motion_id, status: motion.status });";
    expect(detailFields(colliding)[0]!.fields).toContain('status');
  });

  it('never uses error, message, status or http_status as a detail, so each keeps one meaning', () => {
    const offenders: string[] = [];
    for (const file of [...sources('engine'), ...sources('api')]) {
      const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
      for (const { call, fields } of detailFields(text)) {
        const reserved = fields.filter((field) => RESERVED_FIELDS.includes(field));
        if (reserved.length > 0) offenders.push(`${file}: ${reserved.join(', ')} in ${call}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
