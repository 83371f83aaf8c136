import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocietyState } from '../engine/state.js';
import { WORLD_SIZE } from '../engine/world/geometry.js';
import { STRUCTURES_MAX_MASTS, STRUCTURES_MAX_ROADS, structuresView } from '../engine/world/structures.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, WORLD_TEST_GENESIS } from './helpers/world.js';
import { buildAround, type Builds } from './helpers/world_builds.js';

describe('the world_structures read', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
  });
  afterAll(async () => {
    await society?.destroy();
  });

  const structures = async () => {
    const response = await fetch(`${society.url}/api/v1/world/structures`);
    expect(response.status).toBe(200);
    return response.json();
  };

  it('answers empty lists and no Hub in a new society', async () => {
    expect(await structures()).toEqual({
      masts: [],
      links: [],
      hub: null,
      roads: [],
      truncated: { masts: false, roads: false },
    });
  });

  it('lists built masts, their link once, the Hub and the road, and the world page names them', async () => {
    const builder = await join(society, 'builder');
    const built: Builds = await buildAround(society, builder);
    const { spot } = built;
    expect(await structures()).toEqual({
      masts: [
        { relay_id: 1, x: spot.x, y: spot.y - 3, builder: builder.id },
        { relay_id: 2, x: spot.x, y: spot.y, builder: builder.id },
      ],
      links: [{ from_relay_id: 1, to_relay_id: 2 }],
      hub: { relay_id: 1, x: spot.x, y: spot.y - 3, builder: builder.id },
      roads: [built.road],
      truncated: { masts: false, roads: false },
    });
    const markdown = await (await fetch(`${society.url}/world.md`)).text();
    expect(markdown).toContain(`The Aether Hub stands on mast 1 at (${spot.x}, ${spot.y - 3}).`);
    expect(markdown).toContain(`Road tiles (1): (${built.road.x}, ${built.road.y}).`);
    expect(markdown).toContain(`builder (${builder.id})`);
  });

  it('takes a permalink view on the page, and answers a bad one with the 422 page', async () => {
    const good = await fetch(`${society.url}/world?x=10&y=2047&z=5`);
    expect(good.status).toBe(200);
    expect(await good.text()).toContain('data-x="10" data-y="2047" data-z="5"');
    for (const bad of ['x=2048', 'y=-1', 'z=6', 'z=-3', 'x=1.5']) {
      const response = await fetch(`${society.url}/world?${bad}`);
      expect(response.status, bad).toBe(422);
      expect(response.headers.get('content-type')).toContain('text/html');
    }
  });
});

describe('structuresView, at its caps', () => {
  it('keeps the lowest relay ids and the first roads in row-major order, and says it cut', () => {
    const masts = Array.from({ length: STRUCTURES_MAX_MASTS + 1 }, (_, at) => ({
      relay_id: at + 1,
      x: at % WORLD_SIZE,
      y: 7,
      builder: 'ag_b',
      // Linked to the next mast, and the last kept one to the one past the cap.
      links: [at, at + 2].filter((id) => id >= 1 && id <= STRUCTURES_MAX_MASTS + 1),
    }));
    const roads = new Set<number>();
    for (let index = STRUCTURES_MAX_ROADS; index >= 0; index--) roads.add(index * 3);
    const state = { aether: { masts, hub: null }, world: { roads } } as unknown as SocietyState;
    const view = structuresView(state);
    expect(view.masts.length).toBe(STRUCTURES_MAX_MASTS);
    expect(view.links.length).toBe(STRUCTURES_MAX_MASTS - 1);
    expect(view.links.at(-1)).toEqual({ from_relay_id: STRUCTURES_MAX_MASTS - 1, to_relay_id: STRUCTURES_MAX_MASTS });
    expect(view.roads.length).toBe(STRUCTURES_MAX_ROADS);
    expect(view.roads.slice(0, 2)).toEqual([
      { x: 0, y: 0 },
      { x: 3, y: 0 },
    ]);
    expect(view.truncated).toEqual({ masts: true, roads: true });
  });
});
