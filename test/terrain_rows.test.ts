import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WORLD_SIZE } from '../engine/world/geometry.js';
import { FractalField, hashString } from '../engine/world/noise.js';
import { generateTerrain } from '../engine/world/terrain.js';

/**
 * The plane is made a row at a time (FractalField.row), which must give exactly what the
 * per-tile definition (FractalField.at) gives: a seed's world is fixed, hash for hash, in
 * every society already running, so a faster generator may not move a single bit.
 */
describe('the terrain generator, a row at a time', () => {
  it('gives bit for bit what the per-tile definition gives, for the fields of the plane and a field of odd cells', () => {
    const seed = hashString('terrain-rows-test');
    const fields = [
      new FractalField(seed, 256, 5, WORLD_SIZE),
      new FractalField((seed ^ 0x5bd1e995) >>> 0, 192, 4, WORLD_SIZE),
      new FractalField((seed ^ 0x27d4eb2f) >>> 0, 48, 3, WORLD_SIZE),
      // 6, 3, 1.5, 1: cells that stop being whole numbers take the per-tile path.
      new FractalField(seed, 6, 4, 200),
    ];
    const out = new Float64Array(WORLD_SIZE);
    for (const field of fields) {
      for (let y = 0; y < 200; y += 7) {
        field.row(y, out);
        for (let x = 0; x < out.length; x += 3) {
          if (out[x] !== field.at(x, y)) expect(`${x},${y}: ${out[x]}`).toBe(`${x},${y}: ${field.at(x, y)}`);
        }
      }
    }
  });

  it('makes the same plane for a seed as every earlier version did', () => {
    const terrain = generateTerrain('world-tests');
    const digest = createHash('sha256').update(terrain.biome).update(terrain.base_height).digest('hex');
    // Recorded before the generator went row by row (issue 33); a change here changes every society's world.
    expect(digest).toBe('ff9bd27522a1099a21e8786c16706351f203e3ff4e928a56f70b0595ef958615');
  });
});
