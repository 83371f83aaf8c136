import type { AgentName } from '../../../render/pages/html_bits.js';
import { type ReadContext } from '../../../engine/index.js';

/** An agent as the pages name it: with its handle, or null for an id nobody registered (the Founder's before it registers). */
export function nameOf(state: ReadContext['state'], agent_id: string): AgentName {
  return { agent_id, handle: state.agents.get(agent_id)?.handle ?? null };
}
