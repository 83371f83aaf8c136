import type { ReadDefinition } from './read.js';
import { motionList, motionRead } from './reads/motions.js';
import { societyStatus, worldParams } from './reads/society_status.js';

/**
 * The read catalogue: every public read of the society, declared once (engine/read.ts).
 * api/read_mount.ts mounts each as a GET route; the OpenAPI document and the MCP read
 * tools are generated from this list. Adding a read is a definition in reads/ and a
 * line here.
 */
export const READ_CATALOGUE: readonly ReadDefinition[] = [societyStatus, worldParams, motionList, motionRead] as ReadDefinition[];

let by_name: Map<string, ReadDefinition> | undefined;

export function findRead(name: string): ReadDefinition | undefined {
  by_name ??= new Map(READ_CATALOGUE.map((read) => [read.name, read]));
  return by_name.get(name);
}
