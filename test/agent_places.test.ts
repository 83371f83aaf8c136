import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentsWithin, moveAgent, placeAgent } from '../engine/world/agent_places.js';
import type { WorldAgent, WorldState } from '../engine/world/world_state.js';

/** The part of a world the index reads: its members, in the order they joined. */
const worldOf = (): WorldState => ({ agents: new Map<string, WorldAgent>() }) as WorldState;

const member = (ordinal: number, x: number, y: number): WorldAgent => ({
  agent_id: `ag_${ordinal}`,
  ordinal,
  x,
  y,
  ap: 0,
  ap_as_of_ms: 0,
  inventory: {},
  standing: 0,
  explore_day: 0,
  explore_bonus_tiles: 0,
});

/** The general version the index stands in for: every member, filtered. */
const scanned = (world: WorldState, x0: number, y0: number, x1: number, y1: number) =>
  [...world.agents.values()].filter((a) => a.x >= x0 && a.x <= x1 && a.y >= y0 && a.y <= y1);

// Positions near a corner and near each other, so squares find several members and cross the world's edge.
const coordinate = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 2035, max: 2047 }));

describe('members by the tile they stand on', () => {
  it('finds what a scan of every member finds, in joining order, through joins and moves, small squares and wide ones', () => {
    const step = fc.oneof(
      fc.record({ join: fc.tuple(coordinate, coordinate) }),
      fc.record({ move: fc.nat(), to: fc.tuple(coordinate, coordinate) }),
      fc.record({
        look: fc.tuple(fc.integer({ min: -20, max: 2060 }), fc.integer({ min: -20, max: 2060 })),
        radius: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 100, max: 2100 })),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const world = worldOf();
        // Read once before any member joins, so the index is kept (not rebuilt) through what follows.
        expect(agentsWithin(world, 0, 0, 2047, 2047)).toEqual([]);
        for (const s of steps) {
          if ('join' in s) {
            const agent = member(world.agents.size, ...s.join);
            world.agents.set(agent.agent_id, agent);
            placeAgent(world, agent);
          } else if ('move' in s) {
            const agents = [...world.agents.values()];
            if (agents.length > 0) moveAgent(world, agents[s.move % agents.length]!, ...s.to);
          } else {
            const [x, y] = s.look;
            const square = [x - s.radius, y - s.radius, x + s.radius, y + s.radius] as const;
            expect(agentsWithin(world, ...square)).toEqual(scanned(world, ...square));
          }
        }
        // A world restored from its image has a new member map: its index is built from it.
        const restored = { agents: new Map(world.agents) } as WorldState;
        expect(agentsWithin(restored, 0, 0, 12, 12)).toEqual(scanned(world, 0, 0, 12, 12));
      }),
    );
  });

  it('refuses to answer once a position was changed behind its back (an engine invariant)', () => {
    const world = worldOf();
    const agent = member(0, 5, 5);
    world.agents.set(agent.agent_id, agent);
    expect(agentsWithin(world, 0, 0, 10, 10)).toEqual([agent]);
    agent.x = 6;
    expect(() => agentsWithin(world, 0, 0, 10, 10)).toThrow(/changed outside moveAgent/);
  });
});
