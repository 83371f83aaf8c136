import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { decodeChunk, LAYER_BIOME, LAYER_HEIGHT, LAYER_TOP_BLOCK } from '../engine/world/chunk_codec.js';
import { tileIndex } from '../engine/world/geometry.js';
import { naturalMaterial } from '../engine/world/terrain.js';
import { PLACED, setCell } from '../engine/world/world_state.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import {
  WORLD_TEST_GENESIS,
  biomeAt,
  findTile,
  join,
  look,
  refusal,
  standOn,
  stepInto,
  worldOf,
  type Member,
} from './helpers/world.js';

let society: TestSociety;
let url: string;
beforeAll(async () => {
  society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
  url = society.url;
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

describe('joining the world', () => {
  it('spawns a member on land near the centre with AP at registration, and reveals around it', async () => {
    const member = await join(society, 'spawner');
    const seen = await look(member);
    expect(Math.abs(seen.position.x - 1024)).toBeLessThanOrEqual(200);
    expect(Math.abs(seen.position.y - 1024)).toBeLessThanOrEqual(200);
    expect(seen.biome).not.toBe('water');
    expect(seen.ap).toBe(300);
    expect(seen.inventory).toEqual({});
    expect(seen.around).toHaveLength(25);
    expect(seen.around.every((tile: { revealed: boolean }) => tile.revealed)).toBe(true);
    expect(seen.around.find((tile: any) => tile.x === seen.position.x && tile.y === seen.position.y).members).toContain(
      member.id,
    );
  });

  it("refuses world acts from the Founder's key, which is not a member, with 402 MEMBERSHIP_REQUIRED", async () => {
    const error = await refusal((await founderClient(society)).act('world_look', { radius: 2 }));
    expect([error.status, error.code]).toEqual([402, 'MEMBERSHIP_REQUIRED']);
  });
});

describe('moving', () => {
  it("charges the biome cost of each step and refuses water with the specification's message, all or nothing", async () => {
    const member = await join(society, 'walker');
    const world = worldOf(society);
    for (const [biome, cost] of Object.entries({
      plains: 1,
      ruins: 1,
      forest: 2,
      wasteland: 2,
      desert: 2,
      mountain: 4,
    })) {
      const start = findTile(world, (x, y, here) => here !== 'water' && stepInto(world, x, y, biome) !== undefined);
      standOn(society, member, start.x, start.y);
      const before = (await look(member)).ap;
      const moved = await member.client.act<any>('world_move', { path: [stepInto(world, start.x, start.y, biome)] });
      expect(moved.result.ap_spent, biome).toBe(cost);
      expect(moved.result.ap, biome).toBe(before - cost);
    }
    const shore = findTile(
      world,
      (x, y, here) =>
        here !== 'water' &&
        stepInto(world, x, y, 'water') !== undefined &&
        stepInto(world, x, y, 'plains') !== undefined,
    );
    standOn(society, member, shore.x, shore.y);
    const before = await look(member);
    const direct = await refusal(
      member.client.act('world_move', { path: [stepInto(world, shore.x, shore.y, 'water')!] }),
    );
    expect([direct.status, direct.code, (direct.body as any).message]).toEqual([
      409,
      'IMPASSABLE',
      'water is impassable until Bridges are legislated',
    ]);
    // A land step first, then water: refused whole, so the land step is not taken either.
    const land = stepInto(world, shore.x, shore.y, 'plains')!;
    const back: Record<string, string> = { n: 's', ne: 'sw', e: 'w', se: 'nw', s: 'n', sw: 'ne', w: 'e', nw: 'se' };
    const mixed = await refusal(
      member.client.act('world_move', { path: [land, back[land]!, stepInto(world, shore.x, shore.y, 'water')!] }),
    );
    expect([mixed.code, (mixed.body as any).step]).toEqual(['IMPASSABLE', 3]);
    const after = await look(member);
    expect([after.position, after.ap]).toEqual([before.position, before.ap]);
  });

  it('refuses a path that leaves the world with 404 OUT_OF_BOUNDS and moves nothing', async () => {
    const member = await join(society, 'edge-walker');
    const edge = findTile(worldOf(society), (x, y, biome) => biome !== 'water' && y === 1, 1024, 1);
    standOn(society, member, edge.x, edge.y);
    const error = await refusal(member.client.act('world_move', { path: ['n', 'n'] }));
    expect([error.status, error.code]).toEqual([404, 'OUT_OF_BOUNDS']);
    expect((await look(member)).position).toMatchObject(edge);
  });

  it('puts one agent_moved entry on the ledger, with the proof and the AP spent', async () => {
    const member = await join(society, 'ledger-walker');
    const world = worldOf(society);
    const start = findTile(world, (x, y, here) => here === 'plains' && stepInto(world, x, y, 'plains') !== undefined);
    standOn(society, member, start.x, start.y);
    const moved = await member.client.act<any>('world_move', { path: [stepInto(world, start.x, start.y, 'plains')] });
    const entry = (await request(url, `/api/v1/ledger?from=${moved.ledger.first_seq}&limit=1`)).body.entries[0];
    expect(entry).toMatchObject({ event_type: 'agent_moved', actor: member.id, data: { ap_spent: 1, from: start } });
    expect(entry.proof.path).toBe('/api/v1/act');
  });
});

describe('digging, building and breaking', () => {
  it('digs the top of a column within reach, yields its material, and refuses air, water and depth beyond reach', async () => {
    const member = await join(society, 'digger');
    const world = worldOf(society);
    const spot = findTile(world, (x, y, here) => here === 'plains' && stepInto(world, x, y, 'water') !== undefined);
    standOn(society, member, spot.x, spot.y);
    const z = world.surface[tileIndex(spot.x, spot.y)]!;
    const dug = await member.client.act<any>('world_dig', { x: spot.x, y: spot.y, z: null });
    expect(dug.result).toMatchObject({ yield: 'dirt', z, inventory: { dirt: 1 } });
    expect(world.surface[tileIndex(spot.x, spot.y)]).toBe(z - 1);

    const air = await refusal(member.client.act('world_dig', { x: spot.x, y: spot.y, z: z + 2 }));
    expect([air.status, air.code]).toEqual([409, 'NOTHING_TO_DIG']);
    const [wx, wy] = (() => {
      const direction = stepInto(world, spot.x, spot.y, 'water')!;
      const offsets: Record<string, [number, number]> = {
        n: [0, -1],
        ne: [1, -1],
        e: [1, 0],
        se: [1, 1],
        s: [0, 1],
        sw: [-1, 1],
        w: [-1, 0],
        nw: [-1, -1],
      };
      return [spot.x + offsets[direction]![0], spot.y + offsets[direction]![1]];
    })();
    const water = await refusal(member.client.act('world_dig', { x: wx, y: wy, z: null }));
    expect([water.code, water.message]).toEqual(['NOTHING_TO_DIG', expect.stringContaining('water')]);

    // Standing at z - 1 now: a cell 4 below is within reach, 5 below is not.
    const standing = z - 1;
    const far = await refusal(member.client.act('world_dig', { x: spot.x, y: spot.y, z: standing - 5 }));
    expect([far.status, far.code]).toEqual([409, 'OUT_OF_REACH']);
    const deep = await member.client.act<any>('world_dig', { x: spot.x, y: spot.y, z: standing - 4 });
    expect(deep.result.z).toBe(standing - 4);
  });

  it('places a block for 1 AP and 1 unit, breaks it for 1 AP with no refund: minus one unit and two AP', async () => {
    const member = await join(society, 'builder');
    const world = worldOf(society);
    const spot = findTile(world, (x, y, here) => here === 'plains' && biomeAt(world, x + 1, y) === 'plains');
    standOn(society, member, spot.x, spot.y);
    await member.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    const before = await look(member);
    expect(before.inventory).toEqual({ dirt: 1 });
    const placed = await member.client.act<any>('world_place_block', {
      x: spot.x + 1,
      y: spot.y,
      z: null,
      block_id: 1,
    });
    expect(worldOf(society).top_block[tileIndex(spot.x + 1, spot.y)]).toBe(1);
    const broken = await member.client.act<any>('world_break_block', { x: spot.x + 1, y: spot.y, z: null });
    expect(broken.result.refund).toBe(0);
    const after = await look(member);
    expect(after.inventory).toEqual({});
    expect(before.ap - after.ap).toBe(2);
    expect(placed.result.z).toBe(broken.result.z);
    expect(worldOf(society).top_block[tileIndex(spot.x + 1, spot.y)]).toBe(0);

    const poor = await refusal(
      member.client.act('world_place_block', { x: spot.x + 1, y: spot.y, z: null, block_id: 2 }),
    );
    expect([poor.status, poor.code]).toEqual([409, 'CANNOT_AFFORD']);
    const nothing = await refusal(member.client.act('world_break_block', { x: spot.x + 1, y: spot.y, z: null }));
    expect([nothing.status, nothing.code]).toEqual([409, 'NOTHING_THERE']);
    const terrain = await refusal(
      member.client.act('world_break_block', {
        x: spot.x + 1,
        y: spot.y,
        z: world.surface[tileIndex(spot.x + 1, spot.y)]!,
      }),
    );
    expect(terrain.code).toBe('NOTHING_THERE');
    await member.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    const occupied = await refusal(
      member.client.act('world_place_block', {
        x: spot.x + 1,
        y: spot.y,
        z: world.surface[tileIndex(spot.x + 1, spot.y)]!,
        block_id: 1,
      }),
    );
    expect([occupied.status, occupied.code]).toEqual([409, 'CANNOT_PLACE']);
  });

  it('answers NOTHING_THERE for water, which is a fluid and not a block', async () => {
    const member = await join(society, 'wader');
    const world = worldOf(society);
    const water = findTile(world, (_x, _y, here) => here === 'water');
    standOn(society, member, water.x, water.y - 1);
    const error = await refusal(member.client.act('world_break_block', { x: water.x, y: water.y, z: 19 }));
    expect([error.code, error.message]).toEqual(['NOTHING_THERE', expect.stringContaining('fluid')]);
  });
});

describe('giving', () => {
  it('moves resources to a member within reach, charging transfer_ap to the giver only, entered twice on the ledger', async () => {
    const giver = await join(society, 'giver');
    const taker = await join(society, 'taker');
    const world = worldOf(society);
    const spot = findTile(
      world,
      (x, y, here) =>
        here === 'plains' &&
        biomeAt(world, x + 1, y) === 'plains' &&
        world.surface[tileIndex(x, y)] === world.surface[tileIndex(x + 1, y)],
    );
    standOn(society, giver, spot.x, spot.y);
    standOn(society, taker, spot.x + 1, spot.y);
    await giver.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    await giver.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    const [giver_before, taker_before] = [await look(giver), await look(taker)];
    const given = await giver.client.act<any>('world_give', { to: taker.id, resource: 'dirt', amount: 2 });
    const [giver_after, taker_after] = [await look(giver), await look(taker)];
    expect(giver_before.ap - giver_after.ap).toBe(1);
    expect(taker_after.ap).toBe(taker_before.ap);
    expect(giver_after.inventory).toEqual({});
    expect(taker_after.inventory).toEqual({ dirt: 2 });
    const entries = (await request(url, `/api/v1/ledger?from=${given.ledger.first_seq}&limit=3`)).body.entries;
    expect(entries.map((entry: any) => [entry.event_type, entry.actor])).toEqual([
      ['resource_sent', giver.id],
      ['ap_spent', giver.id],
      ['resource_received', taker.id],
    ]);

    const poor = await refusal(giver.client.act('world_give', { to: taker.id, resource: 'dirt', amount: 1 }));
    expect([poor.status, poor.code]).toEqual([409, 'CANNOT_AFFORD']);
    const self = await refusal(taker.client.act('world_give', { to: taker.id, resource: 'dirt', amount: 1 }));
    expect([self.status, self.code]).toEqual([409, 'SELF_TRANSFER']);
    const stranger = await refusal(
      taker.client.act('world_give', { to: (await generateKey()).agent_id, resource: 'dirt', amount: 1 }),
    );
    expect([stranger.status, stranger.code]).toEqual([404, 'UNKNOWN_AGENT']);
    standOn(society, giver, spot.x + 40, spot.y);
    const far = await refusal(taker.client.act('world_give', { to: giver.id, resource: 'dirt', amount: 1 }));
    expect([far.status, far.code]).toEqual([409, 'OUT_OF_REACH']);
  });
});

describe('gathering and roads', () => {
  it('gathers timber from forest once until it regrows, and nothing from plains', async () => {
    const member = await join(society, 'gatherer');
    const world = worldOf(society);
    const forest = findTile(world, (x, y, here) => here === 'forest' && !world.gathered_at_ms.has(tileIndex(x, y)));
    standOn(society, member, forest.x, forest.y);
    const gathered = await member.client.act<any>('world_gather', { x: null, y: null });
    expect(gathered.result).toMatchObject({ resource: 'timber', amount: 1 });
    const again = await refusal(member.client.act('world_gather', { x: null, y: null }));
    expect([again.status, again.code]).toEqual([409, 'NOTHING_TO_GATHER']);
    society.advance(86_400_000);
    await member.client.act('world_gather', { x: null, y: null });
    const plains = findTile(world, (_x, _y, here) => here === 'plains');
    standOn(society, member, plains.x, plains.y);
    expect((await refusal(member.client.act('world_gather', { x: null, y: null }))).code).toBe('NOTHING_TO_GATHER');
  });

  it('lays a road for 4 AP and 6 slag, refuses water and a short purse, and makes the step onto it cost 1', async () => {
    const member = await join(society, 'roadman');
    const world = worldOf(society);
    const spot = findTile(world, (x, y, here) => here !== 'water' && biomeAt(world, x + 1, y) === 'mountain');
    standOn(society, member, spot.x, spot.y);
    const poor = await refusal(member.client.act('world_build_road', { x: spot.x + 1, y: spot.y }));
    expect([poor.status, poor.code]).toEqual([409, 'CANNOT_AFFORD']);
    world.agents.get(member.id)!.inventory.slag = 6; // arranged: slag comes from wasteland digging
    const before = await look(member);
    await member.client.act('world_build_road', { x: spot.x + 1, y: spot.y });
    const after = await look(member);
    expect(before.ap - after.ap).toBe(4);
    expect(after.inventory).toEqual({});
    const moved = await member.client.act<any>('world_move', { path: ['e'] });
    expect(moved.result.ap_spent).toBe(1);
    const water = findTile(world, (x, y, here) => here !== 'water' && biomeAt(world, x + 1, y) === 'water');
    standOn(society, member, water.x, water.y);
    world.agents.get(member.id)!.inventory.slag = 6;
    const wet = await refusal(member.client.act('world_build_road', { x: water.x + 1, y: water.y }));
    expect([wet.status, wet.code]).toEqual([409, 'IMPASSABLE']);
  });
});

describe('standing', () => {
  it('pays for a relic once, with relic_found and standing_awarded on the ledger', async () => {
    const member = await join(society, 'archaeologist');
    const world = worldOf(society);
    const site = findTile(
      world,
      (x, y, here) =>
        here === 'ruins' && naturalMaterial(world.terrain, x, y, world.terrain.base_height[tileIndex(x, y)]! - 2) === 9,
    );
    standOn(society, member, site.x, site.y);
    const top = world.surface[tileIndex(site.x, site.y)]!;
    await member.client.act('world_dig', { x: site.x, y: site.y, z: null });
    await member.client.act('world_dig', { x: site.x, y: site.y, z: null });
    const standing_before = (await look(member)).standing;
    const found = await member.client.act<any>('world_dig', { x: site.x, y: site.y, z: null });
    expect(found.result).toMatchObject({ yield: 'relic', z: top - 2 });
    const entries = (await request(url, `/api/v1/ledger?from=${found.ledger.first_seq}&limit=4`)).body.entries;
    expect(entries.map((entry: any) => entry.event_type)).toEqual([
      'terrain_dug',
      'ap_spent',
      'relic_found',
      'standing_awarded',
    ]);
    expect(entries[3].data).toMatchObject({ points: 40, reason: 'relic_found' });
    expect((await look(member)).standing).toBe(standing_before + 40);
    const again = await refusal(member.client.act('world_dig', { x: site.x, y: site.y, z: top - 2 }));
    expect(again.code).toBe('NOTHING_TO_DIG');
  });

  it('pays biome_first_standing to the first member to stand in a biome, and to nobody after', async () => {
    const first = await join(society, 'pioneer');
    const second = await join(society, 'follower');
    const world = worldOf(society);
    // Arranged so that no member has stood in a desert before this test.
    world.biomes_discovered.delete(2);
    const start = findTile(
      world,
      (x, y, here) => here !== 'desert' && here !== 'water' && stepInto(world, x, y, 'desert') !== undefined,
    );
    standOn(society, first, start.x, start.y);
    standOn(society, second, start.x, start.y);
    const step = stepInto(world, start.x, start.y, 'desert')!;
    const moved = await first.client.act<any>('world_move', { path: [step] });
    const entries = (await request(url, `/api/v1/ledger?from=${moved.ledger.first_seq}&limit=10`)).body.entries;
    expect(entries.filter((entry: any) => entry.event_type === 'biome_first_discovery')).toEqual([
      expect.objectContaining({ actor: first.id, data: expect.objectContaining({ biome: 'desert' }) }),
    ]);
    expect(entries.find((entry: any) => entry.data.reason === 'biome_first_discovery')?.data.points).toBe(25);
    const followed = await second.client.act<any>('world_move', { path: [step] });
    const later = (await request(url, `/api/v1/ledger?from=${followed.ledger.first_seq}&limit=10`)).body.entries;
    expect(later.some((entry: any) => entry.event_type === 'biome_first_discovery')).toBe(false);
  });

  it('pays the exploration bonus per first-revealed tile, at most 25 tiles a day', async () => {
    const member = await join(society, 'explorer');
    const world = worldOf(society);
    const start = findTile(world, (x, y) => {
      for (let dx = 0; dx <= 12; dx++) if (biomeAt(world, x + dx, y) !== 'plains') return false;
      for (let dx = -2; dx <= 14; dx++)
        for (let dy = -2; dy <= 2; dy++) if (world.discoveries.discovererOf(tileIndex(x + dx, y + dy))) return false;
      return true;
    });
    standOn(society, member, start.x, start.y);
    const first = await member.client.act<any>('world_move', { path: ['e', 'e', 'e'] });
    expect(first.result.tiles_revealed).toBeGreaterThan(0);
    let earned = 0;
    for (const path of [
      ['e', 'e', 'e'],
      ['e', 'e', 'e'],
      ['e', 'e', 'e'],
    ])
      await member.client.act('world_move', { path });
    const seen = await look(member);
    earned = seen.standing;
    expect(earned).toBe(25 * 2);
  });
});

describe('public world reads', () => {
  it('serves a revealed tile, answers only revealed: false for an unrevealed one, and 404 OUT_OF_BOUNDS outside', async () => {
    const member = await join(society, 'reader');
    const seen = await look(member);
    const tile = (await request(url, `/api/v1/world/tile/${seen.position.x}/${seen.position.y}`)).body;
    expect(tile).toMatchObject({ revealed: true, biome: seen.biome, discovered_by: expect.stringMatching(/^ag_/) });
    const hidden = findTile(
      worldOf(society),
      (x, y) => worldOf(society).discoveries.discovererOf(tileIndex(x, y)) === 0,
      5,
      5,
    );
    expect((await request(url, `/api/v1/world/tile/${hidden.x}/${hidden.y}`)).body).toEqual({
      x: hidden.x,
      y: hidden.y,
      revealed: false,
    });
    const outside = await request(url, '/api/v1/world/tile/2048/5');
    expect([outside.status, outside.body.error]).toEqual([404, 'OUT_OF_BOUNDS']);
    expect((await request(url, '/api/v1/world/tile/1.5/2')).status).toBe(422);
    const column = await member.client.act<any>('world_column', { x: hidden.x, y: hidden.y });
    expect(column.result).toEqual({ x: hidden.x, y: hidden.y, revealed: false });
    const visible = await member.client.act<any>('world_column', { x: seen.position.x, y: seen.position.y });
    expect(visible.result.faces[0]).toMatchObject({ z: seen.position.z });
  });

  it('serves chunk binaries with a content ETag, 304 when unchanged, a new tag when the chunk changes', async () => {
    const member = await join(society, 'cartographer');
    const seen = await look(member);
    const [cx, cy] = [Math.floor(seen.position.x / 64), Math.floor(seen.position.y / 64)];
    const first = await fetch(`${url}/api/v1/world/chunk/${cx}/${cy}`);
    const bytes = new Uint8Array(await first.arrayBuffer());
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('content-type')).toBe('application/octet-stream');
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const chunk = decodeChunk(bytes);
    expect([chunk.chunk_x, chunk.chunk_y, chunk.version]).toEqual([cx, cy, 1]);
    const local = (seen.position.y % 64) * 64 + (seen.position.x % 64);
    expect(chunk.layers.get(LAYER_HEIGHT)![local]).toBe(seen.position.z);
    const not_modified = await fetch(`${url}/api/v1/world/chunk/${cx}/${cy}`, { headers: { 'If-None-Match': etag } });
    expect(not_modified.status).toBe(304);
    expect((await not_modified.arrayBuffer()).byteLength).toBe(0);
    await member.client.act('world_dig', { x: seen.position.x, y: seen.position.y, z: null });
    const changed = await fetch(`${url}/api/v1/world/chunk/${cx}/${cy}`, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const outside = await request(url, '/api/v1/world/chunk/32/0');
    expect([outside.status, outside.body.error, outside.body.message]).toEqual([
      404,
      'OUT_OF_BOUNDS',
      'chunks run 0-31 on each axis',
    ]);
    const map = await refusal(member.client.act('world_map', { chunk_x: 0, chunk_y: 40 }));
    expect([map.code, (map.body as any).message]).toEqual(['OUT_OF_BOUNDS', 'chunks run 0-31 on each axis']);
  });

  it('leaks nothing about unrevealed tiles: chunk layers, blocks and the revealed list', async () => {
    const world = worldOf(society);
    const hidden = findTile(
      world,
      (x, y, here) =>
        here === 'plains' &&
        world.discoveries.discovererOf(tileIndex(x, y)) === 0 &&
        world.discoveries.discovererOf(tileIndex(x + 4, y)) === 0,
      100,
      100,
    );
    // Arranged: a block on a tile nobody has revealed (reach 4 exceeds the reveal radius of 2, so this can happen).
    setCell(world, hidden.x, hidden.y, world.surface[tileIndex(hidden.x, hidden.y)]! + 1, 2 | PLACED);
    const [cx, cy] = [Math.floor(hidden.x / 64), Math.floor(hidden.y / 64)];
    const chunk = decodeChunk(
      new Uint8Array(await (await fetch(`${url}/api/v1/world/chunk/${cx}/${cy}`)).arrayBuffer()),
    );
    for (let local = 0; local < 4096; local++) {
      const index = tileIndex(cx * 64 + (local % 64), cy * 64 + Math.floor(local / 64));
      if (world.discoveries.discovererOf(index) !== 0) continue;
      expect([
        chunk.layers.get(LAYER_BIOME)![local],
        chunk.layers.get(LAYER_HEIGHT)![local],
        chunk.layers.get(LAYER_TOP_BLOCK)![local],
      ]).toEqual([255, 0, 0]);
    }
    const blocks = (await request(url, `/api/v1/world/blocks/${cx}/${cy}`)).body.blocks;
    expect(blocks.filter((block: any) => block.x === hidden.x && block.y === hidden.y)).toEqual([]);
    const revealed = (await request(url, '/api/v1/world/revealed')).body.chunks;
    expect(revealed.length).toBeGreaterThan(0);
    expect(revealed.every((chunk: any) => chunk.revealed_tiles > 0)).toBe(true);
  });

  it("serves the votable physics and every member's last position", async () => {
    const params = (await request(url, '/api/v1/world/params')).body;
    expect(params).toMatchObject({
      ap_interval_seconds: 90,
      ap_per_interval: 1,
      transfer_ap: 1,
      block_reach: 4,
      exploration_bonus_daily_tiles: 25,
      exploration_bonus_standing: 2,
      biome_first_standing: 25,
      relic_standing: 40,
    });
    const agents = (await request(url, '/api/v1/world/agents')).body.agents;
    expect(agents.length).toBe(worldOf(society).agents.size);
    expect(agents[0]).toMatchObject({
      agent_id: expect.stringMatching(/^ag_/),
      x: expect.any(Number),
      y: expect.any(Number),
    });
  });
});

describe('AP over engine time', () => {
  let slow: TestSociety;
  let member: Member;
  beforeAll(async () => {
    slow = await startTestSociety({
      genesis: { world_seed: 'world-tests', params: { ap_at_registration: 0, ap_cap: 3 } },
    });
    member = await join(slow, 'patient');
  });
  afterAll(async () => slow.destroy());

  it('accrues ap_per_interval every ap_interval_seconds up to the cap, and refuses NOT_ENOUGH_AP meanwhile', async () => {
    expect((await look(member)).ap).toBe(0);
    const error = await refusal(
      member.client.act('world_dig', {
        x: (await look(member)).position.x,
        y: (await look(member)).position.y,
        z: null,
      }),
    );
    expect([error.status, error.code]).toEqual([409, 'NOT_ENOUGH_AP']);
    expect((error.body as any).ap_available_at).toBe(
      new Date(slow.now() + 90_000).toISOString().replace('Z', '+00:00'),
    );
    slow.advance(89_000);
    expect((await look(member)).ap).toBe(0);
    slow.advance(1_000);
    expect((await look(member)).ap).toBe(1);
    slow.advance(90_000 * 10);
    expect((await look(member)).ap).toBe(3);
  });
});
