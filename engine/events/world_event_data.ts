// The data of the world's events (walking, building, digging, gathering, giving), part of
// EVENT_DATA (engine/events/event_data.ts), whose rules (loose objects, fields required only
// where every engine wrote them) hold here too.
import { z } from 'zod';
import { DIRECTION_NAMES, type Direction } from '../world/geometry.js';
import { agentId, whole, cellFields, tile, cell, resource, apSpent } from './event_data_fields.js';

export const WORLD_EVENT_DATA = {
  agent_moved: z
    .looseObject({
      agent_id: agentId('who moved'),
      from: tile('where the walk started'),
      to: tile('where it ended'),
      path: z
        .array(z.enum(DIRECTION_NAMES as [Direction, ...Direction[]]))
        .describe('the steps taken, in order (n, ne, e, se, s, sw, w, nw)'),
      ap_spent: apSpent(),
    })
    .describe('A member walked a path'),

  block_placed: z
    .looseObject({
      agent_id: agentId('who placed it'),
      ...cellFields,
      block_id: z.int().min(1).describe('the block placed (1 dirt, 2 stone, ... 8 timber)'),
      block: resource('the material of the block, one unit of which it cost'),
      ap_spent: apSpent(),
    })
    .describe('A member placed a block'),

  block_broken: z
    .looseObject({
      agent_id: agentId('who broke it'),
      ...cellFields,
      block_id: z.int().min(1).describe('the block broken (1 dirt, 2 stone, ... 8 timber)'),
      refund: whole('units of its material given back'),
      ap_spent: apSpent(),
    })
    .describe('A member broke a placed block'),

  terrain_dug: z
    .looseObject({
      agent_id: agentId('who dug'),
      ...cellFields,
      yield: resource('the material taken, one unit'),
      ap_spent: apSpent(),
    })
    .describe('A member dug out a cell of terrain'),

  relic_found: z
    .looseObject({ agent_id: agentId('who found it'), site: cell('where it was dug') })
    .describe('A dig turned up a relic'),

  resource_gathered: z
    .looseObject({
      agent_id: agentId('who gathered'),
      x: cellFields.x,
      y: cellFields.y,
      resource: resource('what was gathered'),
      amount: z.int().min(1).describe('units gathered'),
      ap_spent: apSpent(),
    })
    .describe('A member gathered a resource from the surface'),

  resource_sent: z
    .looseObject({
      agent_id: agentId('the giver'),
      to: agentId('the recipient'),
      resource: resource('what was given'),
      amount: z.int().min(1).describe('units given'),
      ap_spent: apSpent(),
    })
    .describe('A member gave resources to another (a resource_received entry follows)'),

  resource_received: z
    .looseObject({
      agent_id: agentId('the recipient'),
      from: agentId('the giver'),
      resource: resource('what was received'),
      amount: z.int().min(1).describe('units received'),
    })
    .describe('The recipient of a gift received it'),
};
