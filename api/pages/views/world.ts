import type { WorldView } from '../../../render/pages/world_page.js';
import { type ReadContext, revealedChunks } from '../../../engine/index.js';

export function worldView({ state }: ReadContext): WorldView {
  return { agents: state.world.agents.size, chunks: revealedChunks(state.world) };
}
