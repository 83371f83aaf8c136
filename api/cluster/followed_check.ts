import { LedgerChecker, type WireEntry } from '../../client/ledger_check.js';
import { isPrimeOrderKey, sha256Hex, type SocietyState } from '../../engine/index.js';
import { SignatureVerifier } from '../signature_verifier.js';

/**
 * What a follower checks in each tick it did not write, beyond replaying it: every
 * entry the replay made goes through the verifier's recipe (client/ledger_check.ts),
 * so each proof is checked against the key its agent registered, with node:crypto
 * doing the arithmetic. It starts from the follower's own store, trusted as it was
 * checked when it was written.
 */
export class FollowedTickCheck {
  private readonly checker: LedgerChecker;

  constructor(state: Readonly<SocietyState>) {
    const signatures = new SignatureVerifier();
    this.checker = LedgerChecker.resumedAt(
      {
        seq: state.ledger_head.seq,
        hash: state.ledger_head.hash,
        ledger_revision: state.ledger_revision,
        keys: state.agents.values(),
      },
      {
        sha256Hex,
        verifySignature: (key, text, signature) => signatures.verify(key, text, signature),
        isPrimeOrderKey,
      },
    );
  }

  /** Throws, naming the entry and why, at the first entry the recipe refuses. */
  async check(entries: readonly { json: string }[]): Promise<void> {
    for (const { json } of entries) {
      const problem = await this.checker.check(JSON.parse(json) as WireEntry);
      if (problem) throw new Error(`entry ${problem.seq} does not verify: ${problem.reason}`);
    }
  }
}
