import { z } from 'zod';
import { defineReadAct } from '../act.js';
import { memberOf, outOfBounds } from '../world/rules.js';
import { tileCoordinate } from '../world/coordinate_schemas.js';
import { exposedFaces, tileView } from '../world/views.js';

export const ColumnSchema = z.strictObject({
  x: tileCoordinate('x'),
  y: tileCoordinate('y'),
});

export const worldColumn = defineReadAct({
  name: 'world_column',
  summary:
    'Costs 0 AP and needs no Proof of Machine: the exposed faces of a revealed column (cells touching air or water), top down. An unrevealed column answers only revealed: false.',
  payload: ColumnSchema,
  signer: 'primary',
  via_act: true,
  gates: { membership: true, pom: false },
  read(ctx, { x, y }) {
    memberOf(ctx);
    const beyond = outOfBounds(x, y);
    if (beyond) return beyond;
    const tile = tileView(ctx.state.world, x, y);
    if (!tile.revealed) return { ok: true, result: tile };
    return { ok: true, result: { ...tile, faces: exposedFaces(ctx.state.world, x, y) } };
  },
});
