// The pieces event data schemas are made of (engine/events/event_data.ts): ids, keys, hashes,
// tiles and cells, and the shapes several events share.
import { z } from 'zod';
import { AGENT_ID_PATTERN, PUBKEY_PATTERN } from '../identity.js';
import { BIOMES, RESOURCES } from '../world/materials.js';

export const agentId = (what: string) => z.string().regex(AGENT_ID_PATTERN).describe(`${what} (ag_ and 16 hex digits)`);
export const pubkey = (what: string) =>
  z.string().regex(PUBKEY_PATTERN).describe(`${what}: ed25519, base64url without padding`);
export const HEX_SHA256 = /^[0-9a-f]{64}$/;
export const sha256Hex = (what: string) => z.string().regex(HEX_SHA256).describe(`hex SHA-256 of ${what}`);
export const whole = (what: string) => z.int().min(0).describe(what);
/** The cell fields that world acts on one cell write at the top level of their data. */
export const cellFields = {
  x: z.int().describe('column, west to east'),
  y: z.int().describe('row, north to south'),
  z: z.int().describe('height, 0 at the bottom of the world'),
};
export const tile = (what: string) =>
  z.looseObject({ x: cellFields.x, y: cellFields.y }).describe(`${what}: tile {x, y}`);
export const cell = (what: string) => z.looseObject(cellFields).describe(`${what}: cell {x, y, z}`);
export const resource = (what: string) => z.enum(RESOURCES).describe(what);
export const motionId = (what: string) => z.string().describe(`${what} (M-<4 digits>-<4 hex>)`);
export const apSpent = () => whole('AP the act cost');

export const structureBuilt = z
  .discriminatedUnion('structure', [
    z.looseObject({
      structure: z.literal('relay_mast').describe('a relay mast, raised on the tile its builder stands on'),
      agent_id: agentId('the builder'),
      relay_id: z.int().min(1).describe('number of the new mast, from 1 in building order'),
      position: tile('where the mast stands'),
    }),
    z.looseObject({
      structure: z.literal('aether_hub').describe('the Aether Hub, built on a relay mast'),
      agent_id: agentId('the builder'),
      relay_id: z.int().min(1).describe('the mast the Hub stands on'),
      position: tile('where the Hub stands (its mast)'),
    }),
    z.looseObject({
      structure: z.literal('relay_link').describe('a link between two relay masts'),
      agent_id: agentId('the builder'),
      from_relay_id: z.int().min(1).describe('the mast the builder stood by'),
      to_relay_id: z.int().min(1).describe('the mast linked to it'),
      span: whole('distance between the masts, in tiles (the larger of the x and y distances)'),
      silicon_spent: whole('units of silicon the link took'),
    }),
    z.looseObject({
      structure: z.literal('road').describe('a road on a land tile'),
      agent_id: agentId('the builder'),
      position: tile('where the road lies'),
      ap_spent: apSpent(),
      slag_spent: whole('units of slag the road took'),
    }),
  ])
  .describe('What was built, by structure: a relay mast, the Aether Hub, a link between masts, or a road');

export const standingBase = {
  agent_id: agentId('the member awarded'),
  points: z.int().min(1).describe('standing awarded by this entry'),
  standing: whole("the member's standing after the award"),
};
export const standingAwarded = z
  .discriminatedUnion('reason', [
    z.looseObject({
      reason: z.literal('exploration').describe('first to reveal tiles (up to a daily number of tiles)'),
      ...standingBase,
      tiles: z.int().min(1).describe('tiles the award pays for'),
    }),
    z.looseObject({
      reason: z.literal('biome_first_discovery').describe('first member ever to stand on a biome'),
      ...standingBase,
      biome: z.enum(BIOMES).describe('the biome'),
    }),
    z.looseObject({
      reason: z.literal('relic_found').describe('a dig turned up a relic'),
      ...standingBase,
      site: cell('where the relic was'),
    }),
  ])
  .describe('Standing the engine granted, by reason, with what the reason pays for');

export const motionTally = z
  .looseObject({
    aye: whole('aye votes'),
    nay: whole('nay votes'),
    abstain: whole('abstentions'),
    participating: whole('members who voted, abstentions included (the quorum counts them)'),
    aye_share: z.number().min(0).max(1).describe('aye / (aye + nay), 0 when both are 0; passing needs more than 0.5'),
  })
  .describe("the final tally, each member's latest vote counted once");

export const paymentMode = (what: string) => z.enum(['off', 'test', 'live']).describe(what);
