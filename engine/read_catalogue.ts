import type { ReadDefinition } from './read.js';
import { aetherFeed } from './reads/aether.js';
import { charterRead, charterVersionRead, founderConduct, p0RefusalList, prohibitionsList } from './reads/law.js';
import { ledgerRead } from './reads/ledger.js';
import { enactmentQueue, motionList, motionRead, motionTally, motionVotes } from './reads/motions.js';
import { bulletinList, chronicleList, dispatchList } from './reads/publications.js';
import { reputationGet, reputationLeaderboard } from './reads/reputation.js';
import { health, societyStatus, standing, worldParams } from './reads/society_status.js';
import { worldAgents, worldBlocks, worldChunk, worldRevealed, worldStructures, worldTile } from './reads/world.js';

/**
 * The read catalogue: every public read of the society, declared once (engine/read.ts).
 * api/read_mount.ts mounts each as a GET route; the OpenAPI document and the MCP read
 * tools are generated from this list. Adding a read is a definition in reads/ and a
 * line here (docs/reads.md).
 */
export const READ_CATALOGUE: readonly ReadDefinition[] = [
  societyStatus,
  standing,
  health,
  ledgerRead,
  worldParams,
  worldTile,
  worldChunk,
  worldBlocks,
  worldRevealed,
  worldAgents,
  worldStructures,
  motionList,
  motionRead,
  motionVotes,
  motionTally,
  enactmentQueue,
  charterRead,
  charterVersionRead,
  prohibitionsList,
  p0RefusalList,
  founderConduct,
  dispatchList,
  bulletinList,
  chronicleList,
  reputationLeaderboard,
  reputationGet,
  aetherFeed,
] as ReadDefinition[];
