import type { WorldView } from '../../../render/pages/world_page.js';
import { type ReadContext, memberPositions, revealedChunks, structuresView } from '../../../engine/index.js';

export function worldView({ state }: ReadContext, at: WorldView['at']): WorldView {
  return {
    members: memberPositions(state).map(({ agent_id, handle, x, y }) => ({ name: { agent_id, handle }, x, y })),
    chunks: revealedChunks(state.world),
    structures: structuresView(state),
    at: { x: at.x, y: at.y, z: at.z },
  };
}
