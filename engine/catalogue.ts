import type { ActDefinition } from './act.js';
import { keyBackupRegister } from './acts/key_backup_register.js';
import { keyRotate } from './acts/key_rotate.js';
import { register } from './acts/register.js';
import { societyFound } from './acts/society_found.js';

/**
 * The action catalogue: the one list that drives /api/v1/act, the dedicated REST
 * routes, and (as later issues add them) the MCP tools, OpenAPI and agent rules.
 * Adding an act is adding a file in acts/ and a line here.
 */
export const CATALOGUE: readonly ActDefinition[] = [societyFound, register, keyBackupRegister, keyRotate] as ActDefinition[];

const byName = new Map(CATALOGUE.map((act) => [act.name, act]));

export function findAct(name: string): ActDefinition | undefined {
  return byName.get(name);
}
