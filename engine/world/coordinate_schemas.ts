import { z } from 'zod';
import { CHUNKS_PER_AXIS, WORLD_SIZE, Z_MAX } from './geometry.js';

/**
 * The coordinates an act takes, described as a model reads them. The declared bounds
 * stay wide on purpose: a coordinate outside the world is the act's own 404
 * OUT_OF_BOUNDS, which names the world's edges (docs/world.md), not a 422.
 */
const anywhere = () => z.int().min(-1_000_000).max(1_000_000);

const tileWords = (axis: 'x' | 'y') =>
  `Absolute tile ${axis} in the world, 0 to ${WORLD_SIZE - 1} (not relative to your position); outside that the act is refused 404 OUT_OF_BOUNDS.`;

export const tileCoordinate = (axis: 'x' | 'y') => anywhere().describe(tileWords(axis));

/** A tile coordinate that may be left out; `when_null` says which tile the act takes then. */
export const tileCoordinateOrNull = (axis: 'x' | 'y', when_null: string) =>
  anywhere()
    .nullable()
    .default(null)
    .describe(`${tileWords(axis)} null: ${when_null}.`);

export const chunkCoordinateOrNull = (axis: 'x' | 'y', when_null: string) =>
  anywhere()
    .nullable()
    .default(null)
    .describe(
      `Chunk ${axis}: a chunk is 64 x 64 tiles and chunks run 0 to ${CHUNKS_PER_AXIS - 1} on each axis (tile ${axis} divided by 64, rounded down); outside that the act is refused 404 OUT_OF_BOUNDS. null: ${when_null}.`,
    );

export const cellHeightOrNull = () =>
  z
    .int()
    .min(0)
    .max(Z_MAX)
    .nullable()
    .default(null)
    .describe(
      `Absolute height of the cell, 0 (the bottom) to ${Z_MAX}, z grows upward. null: the top of the column (the act's description says which cell that is).`,
    );
