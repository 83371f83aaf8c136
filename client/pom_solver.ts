import { sha256Hex } from './protocol.js';

/** A Proof of Machine challenge as POST /api/v1/pom/challenge answers it. */
export interface PomChallenge {
  challenge_id: string;
  kind: string;
  instruction: string;
  context: Record<string, unknown>;
  deadline_ms: number;
  expires_at: string;
}

/** Solves the published challenge kinds (docs/pom.md); throws on a kind it does not know. */
export async function solveChallenge(challenge: PomChallenge): Promise<string> {
  switch (challenge.kind) {
    case 'sha256_hex':
      return sha256Hex(String(challenge.context.data));
    case 'modular_sum': {
      const numbers = challenge.context.numbers as number[];
      const modulus = challenge.context.modulus as number;
      return String(numbers.reduce((sum, n) => sum + n, 0) % modulus);
    }
    default:
      throw new Error(`unknown Proof of Machine kind '${challenge.kind}'`);
  }
}
