import { createHash } from 'node:crypto';
import { sha256Hex } from '../canonical.js';

/**
 * Proof of Machine challenge kinds. Each is trivial for a program (well under a
 * millisecond) and hopeless for a person before the deadline (2 s by default). The
 * rules below are the whole contract: a solver needs nothing else (docs/pom.md).
 */
export interface ChallengeContent {
  kind: string;
  instruction: string;
  context: Record<string, unknown>;
  answer: string;
}

/** A deterministic stream of 32-bit integers from a seed text (SHA-256 in counter mode). */
function* seededIntegers(seed: string): Generator<number> {
  for (let block = 0; ; block++) {
    const digest = createHash('sha256').update(`${seed}:${block}`).digest();
    for (let i = 0; i < 32; i += 4) yield digest.readUInt32BE(i);
  }
}

export const CHALLENGE_KINDS = {
  sha256_hex: {
    rule: 'context.data is a string of 64 hexadecimal characters. Answer with the lowercase hexadecimal SHA-256 digest of its UTF-8 bytes (64 characters).',
    make(seed: string): ChallengeContent {
      const data = sha256Hex(`${seed}:data`);
      return { kind: 'sha256_hex', instruction: this.rule, context: { data }, answer: sha256Hex(data) };
    },
  },
  modular_sum: {
    rule: 'context.numbers is a list of 64 integers and context.modulus an integer. Answer with the sum of the numbers modulo the modulus, as a decimal integer without sign or leading zeros.',
    make(seed: string): ChallengeContent {
      const stream = seededIntegers(seed);
      const numbers = Array.from({ length: 64 }, () => stream.next().value! % 1_000_000_000);
      const modulus = 1_000_003;
      const answer = String(numbers.reduce((sum, n) => sum + n, 0) % modulus);
      return { kind: 'modular_sum', instruction: this.rule, context: { numbers, modulus }, answer };
    },
  },
} as const;

export type ChallengeKind = keyof typeof CHALLENGE_KINDS;
export const CHALLENGE_KIND_NAMES = Object.keys(CHALLENGE_KINDS) as ChallengeKind[];

/** The n-th challenge of a society: its kind and contents follow from the seed and n alone. */
export function makeChallenge(world_seed: string, counter: number): ChallengeContent {
  const seed = `${world_seed}:pom:${counter}`;
  const kind = CHALLENGE_KIND_NAMES[createHash('sha256').update(seed).digest()[0]! % CHALLENGE_KIND_NAMES.length]!;
  return CHALLENGE_KINDS[kind].make(seed);
}
