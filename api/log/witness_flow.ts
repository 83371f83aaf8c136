import { setTimeout as sleep } from 'node:timers/promises';
import { WitnessClient, type ConsistencyProofSource, type WitnessEndpoint } from '../../client/tlog/witness_client.js';
import type { NoteSignature } from '../../client/tlog/note.js';
import type { SignedCheckpoint } from './checkpoints.js';
import type { WitnessLimits } from './witness_limits.js';

/** A witness's cosignature line, and the checkpoint it signs. */
export interface CosignedBy {
  checkpoint: SignedCheckpoint;
  line: string;
  signature: NoteSignature;
}

/**
 * One witness's own loop: every round_interval_ms, if the log has grown since this
 * witness last cosigned, the newest checkpoint goes to it, bounded by the request
 * limits. A witness that is slow, down, refusing or hostile costs its own loop only:
 * no other witness and no reader ever waits for it.
 */
export class WitnessFlow {
  private readonly client: WitnessClient;
  private readonly stopping = new AbortController();
  private cosigned_size = -1;
  private loop: Promise<void> | undefined;

  constructor(
    witness: WitnessEndpoint,
    private readonly limits: WitnessLimits,
    private readonly latest: () => SignedCheckpoint,
    private readonly proofs: ConsistencyProofSource,
    private readonly on_cosigned: (cosigned: CosignedBy) => void,
    private readonly log: (line: Record<string, unknown>) => void,
  ) {
    this.client = new WitnessClient(witness, limits);
  }

  get name(): string {
    return this.client.name;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Aborts the request in flight and waits for the loop to end: the tree's store may be closed right after. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      await this.ask(signal);
      await sleep(this.limits.round_interval_ms, undefined, { signal, ref: false }).catch(() => {});
    }
  }

  private async ask(signal: AbortSignal): Promise<void> {
    const checkpoint = this.latest();
    if (checkpoint.size <= this.cosigned_size) return;
    try {
      const { line, signature } = await this.client.addCheckpoint(checkpoint.note, this.proofs, signal);
      this.cosigned_size = checkpoint.size;
      this.on_cosigned({ checkpoint, line, signature });
    } catch (error) {
      if (signal.aborted) return;
      this.log({ witness: this.name, refused: String((error as Error)?.message ?? error) });
    }
  }
}
