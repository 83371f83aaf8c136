/**
 * The engine's front door: everything the outside (api/, the operator's tools) may use
 * of the engine, and nothing else. What is not exported here is the engine's own
 * business and may change without the host noticing.
 */

// The engine: submissions in, results and refusals out; read acts answered at once.
export { Engine, type EngineOptions, type Submission, type SubmitResult, type TickReport } from './engine.js';
export type { ActDefinition, ApplyOutcome, ReadAct, SignerRule, WriteAct } from './act.js';
export { performRead, type LoggedAction, type TickRecord } from './apply.js';
export { REFUSALS, isRefusal, refuse, type Refusal, type RefusalCode } from './refusals.js';
export { GenesisSchema, LEDGER_REVISION, type Genesis } from './genesis.js';

// The catalogue of acts and what the rules and tools publish from it.
export { CATALOGUE, findAct } from './catalogue.js';
export { DEFAULT_PARAMS, WORLD_PARAM_NAMES, type Params } from './params.js';
export { currentSummary } from './current_summary.js';
export { lowerBound, upperBound } from './sorted_search.js';
export { CHALLENGE_KINDS } from './pom/challenges.js';
export type { PomAnswer } from './pom/gate.js';
export { register } from './acts/register.js';
export { CHUNK_OUT_OF_BOUNDS } from './acts/world_map.js';
export {
  PROCESSOR_EVENT_ID_PATTERN,
  PROCESSOR_EVENT_TYPE_PATTERN,
  PROCESSOR_OBJECT_ID_PATTERN,
  PaymentEventSchema,
  VISITOR_ID_PATTERN,
} from './acts/payment_event.js';
export type { PaymentMode } from './payments/payments_state.js';

// The state and the views of it that reads serve.
export { imageOf, stateFromImage, stateHash, type LedgerHead, type SocietyState, type StateImage } from './state.js';
export { activeMemberCount, gateRefusal, isActiveMember } from './governance/membership.js';
export { ayeShare, findMotion, motionView, rollView } from './governance/motion_rules.js';
export { currentCharter, NO_SIGNALS } from './governance/governance_state.js';
export { FOUNDER_CONDUCT } from './governance/law.js';
export type { AetherMessage } from './aether/aether_state.js';
export { chunkBlocks, revealedChunks, tileView } from './world/views.js';
export { BIOMES, BLOCKS } from './world/materials.js';
export { structuresView } from './world/structures.js';
export { memberPositions } from './reads/world.js';
export { CHUNK_COUNT, CHUNKS_PER_AXIS, inChunks, inWorld, tileIndex } from './world/geometry.js';
export { chunkPlanes, isRevealed, type WorldState } from './world/world_state.js';
export { encodeChunk, type ChunkPlanes } from './world/chunk_codec.js';

// Identity, canonical text and the ledger's entries.
export {
  AGENT_ID_PATTERN,
  SIGNATURE_PATTERN,
  agentIdOf,
  isPrimeOrderKey,
  publicKeysIn,
  weakKeyRefusal,
} from './identity.js';
export { canonicalJson, sha256Hex } from './canonical.js';
export {
  LEDGER_ENTRY_BYTES_MAX,
  LEDGER_PROOF_BYTES_MAX,
  LEDGER_RECIPE,
  type ChainedEntry,
  type LedgerEntry,
  type Proof,
} from './ledger.js';
export { StoreIntegrityError, type StoredEntry } from './ledger_integrity.js';
export { isoAt, type EpochMs } from './time.js';
export { oneLineText } from './text.js';
export { ownValue } from './keyed.js';

// Stores, recovery and the store's operations (backups, restore drills).
export { recoverState, type RecoverOptions } from './recover.js';
export { DivergedLogError, replicatedTickOf, storedTicks, type ReplicatedTick } from './replicated_tick.js';
export { LogTree, TILE_HEIGHT, TILE_WIDTH } from './log/log_tree.js';
export { nativeHasher } from './log/native_hasher.js';
export { firstWrongTreeLeaf } from './log/tree_build.js';
export type {
  ConsumedNonce,
  EngineStore,
  KeptAnswer,
  KeptAnswerRecord,
  KeptOutcome,
  TickCommit,
} from './store/types.js';
export { expiryKeyPrefix } from './store/table_store.js';
export { keptOutcome, type AnswerToKeep } from './kept_answer.js';
export { DATA_FILE, LmdbStore, NoStoreError, type LmdbStoreOptions } from './store/lmdb_store.js';
export { MemoryStore, type MemoryStoreOptions } from './store/memory_store.js';
export type { ProbeOutcome } from './store/store_probe.js';
export { BACKUP_DATA_FILE, MANIFEST_FILE, type BackupManifest } from './store/backup_manifest.js';
export {
  BACKUPS_FOLDER,
  INCOMPLETE_PREFIX,
  listBackups,
  scanBackups,
  takeBackup,
  type Backup,
  type SkippedBackup,
  type TakenBackup,
} from './store/backups.js';
export {
  drillTarget,
  restoreDrill,
  type DrillProgress,
  type DrillResult,
  type DrillTarget,
  type ProofCheck,
} from './store/drill.js';

// The read catalogue: every public read declared once, and the views pages reuse.
export {
  defineRead,
  type BytesAnswer,
  type LedgerReader,
  type ReadContext,
  type LogHead,
  type ReadDefinition,
} from './read.js';
export { READ_CATALOGUE } from './read_catalogue.js';
export {
  MessageSchema,
  aether_feed_limit_max,
  aetherFeed,
  feedPage,
  feedSchemaOf,
  messageData,
} from './reads/aether.js';
export { leaderboard, reputationOf } from './reads/reputation.js';
export { isFullPage, ledger_page_max, nextFrom } from './reads/ledger.js';
export { MotionSchema, MotionStatusSchema, RollSchema, motionList, motionRead } from './reads/motions.js';
export { GENESIS_NOTE, standingNumbers } from './reads/society_status.js';
export { ACT_ROUTES, GENERIC_ACT_ROUTE } from './events/signed_routes.js';
export { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from './events/event_catalogue.js';
