import type { LogHead, LogTree } from '../../engine/index.js';
import type { Checkpoints, SignedCheckpoint } from './checkpoints.js';

/**
 * A hash in the log's base64 (standard, padded), through Buffer: the server's encoder, on
 * every act's receipt. client/tlog/base64.ts writes the same text without Buffer for the
 * verifiers, which must run anywhere.
 */
export function hashBase64(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('base64');
}

/**
 * What an act's answer carries so that its author can prove, to anyone and offline,
 * that the act is on the log: the entry's exact bytes, its leaf index, a checkpoint
 * signed by the log that covers it, and the inclusion proof into that checkpoint.
 */
export interface Receipt {
  leaf_index: number;
  entry: string;
  checkpoint: string;
  inclusion_proof: string[];
}

/** Cosignatures gathered from witnesses (witnessing.ts). */
export interface CosignedCheckpoints {
  /** The log's newest checkpoint, its note carrying the lines witnesses gave for that very checkpoint. */
  served(): SignedCheckpoint;
  /** The newest checkpoint any witness cosigned, with its lines (older than served() while witnesses catch up). */
  cosigned(): SignedCheckpoint | undefined;
}

/**
 * The ledger as a transparency log, for the HTTP layer: the engine's Merkle tree, the
 * log's checkpoints, and the witnesses' cosignatures when witnesses are configured.
 */
export class TransparencyLog {
  constructor(
    readonly tree: LogTree,
    readonly checkpoints: Checkpoints,
    private readonly entryJson: (seq: number) => string | undefined,
    readonly witnessed?: CosignedCheckpoints,
  ) {}

  /**
   * The checkpoint readers are shown: always the log's newest, never held back by a
   * witness, with the cosignature lines witnesses gave for it when there are witnesses.
   */
  servedCheckpoint(): SignedCheckpoint {
    return this.witnessed?.served() ?? this.checkpoints.latest();
  }

  /**
   * For a reader that wants witnesses' word: the newest checkpoint at least one witness
   * cosigned, which lags the served one by about a witness round. Undefined without
   * witnesses, or before any has cosigned.
   */
  cosignedCheckpoint(): SignedCheckpoint | undefined {
    return this.witnessed?.cosigned();
  }

  /** The log's identity and newest signed size, for the status read. */
  head(): LogHead {
    const checkpoint = this.checkpoints.latest();
    return {
      origin: this.checkpoints.origin,
      verifier_key: this.checkpoints.vkey,
      checkpoint: { size: checkpoint.size, root_hash: hashBase64(checkpoint.root) },
    };
  }

  /** The receipt of entry seq against the newest checkpoint; undefined if that entry is not durable yet. */
  receipt(seq: number, entry = this.entryJson(seq)): Receipt | undefined {
    const leaf_index = seq - 1;
    const checkpoint = this.checkpoints.covering(leaf_index);
    if (!checkpoint || entry === undefined) return undefined;
    return {
      leaf_index,
      entry,
      checkpoint: checkpoint.note,
      inclusion_proof: this.tree.inclusionProof(leaf_index, checkpoint.size).map(hashBase64),
    };
  }
}
