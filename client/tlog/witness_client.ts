import { parseCheckpoint } from './checkpoint.js';
import { cosignatureTimestamp, SIGNATURE_TYPE_COSIGNATURE_V1 } from './cosignature.js';
import type { Hash } from './hasher.js';
import { keyIdHex, parseNote, parseSignatureLine, type NoteSignature } from './note.js';
import { noteVerifier, parseVerifierKey, type VerifierKey } from './note_keys.js';
import { formatAddCheckpoint, TREE_SIZE_CONTENT_TYPE } from './witness_protocol.js';

/**
 * The log's side of C2SP tlog-witness: send a new checkpoint, with the consistency
 * proof from the size the witness last cosigned, and take back its cosignature/v1.
 * fetch only, so it runs wherever the log does.
 */

export interface WitnessEndpoint {
  /** The witness's submission prefix: `${url}/add-checkpoint` is posted to. */
  url: string;
  /** The witness's cosignature vkey (type 0x04). */
  vkey: string;
}

/** The consistency proof of the log from old_size to new_size leaves (RFC 6962 section 2.1.2). */
export type ConsistencyProofSource = (old_size: number, new_size: number) => Promise<Hash[]>;

export interface Cosignature {
  /** The signature line to append to the checkpoint note, "— <witness> <base64>\n". */
  line: string;
  signature: NoteSignature;
  /** When the witness signed, POSIX seconds. */
  timestamp_seconds: number;
}

export class WitnessRefusedError extends Error {
  constructor(
    readonly witness: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(`witness ${witness} refused the checkpoint: ${status} ${reason}`);
  }
}

export class WitnessClient {
  private readonly key: VerifierKey;
  /** The size the witness is believed to hold for this log: 0 until it answers, then its cosigned size. */
  private believed_size = 0;

  constructor(
    readonly witness: WitnessEndpoint,
    private readonly options: { fetch?: typeof fetch; timeout_ms?: number } = {},
  ) {
    this.key = parseVerifierKey(witness.vkey);
    if (this.key.type !== SIGNATURE_TYPE_COSIGNATURE_V1)
      throw new Error(`witness vkey ${witness.vkey} is not a cosignature/v1 (type 0x04) key`);
  }

  get name(): string {
    return this.key.name;
  }

  /**
   * Gets the witness's cosignature of the checkpoint note. On 409 the witness holds
   * another size than believed: the request is made once more from that size.
   * Throws WitnessRefusedError, or an Error when the answer is not a valid cosignature.
   */
  async addCheckpoint(checkpoint_note: string, consistency_proof: ConsistencyProofSource): Promise<Cosignature> {
    const { text } = parseNote(checkpoint_note);
    const { size } = parseCheckpoint(text);
    let answer = await this.post(this.believed_size, size, checkpoint_note, consistency_proof);
    if (answer.status === 409) {
      const held = parseHeldSize(answer);
      if (held === undefined) throw new WitnessRefusedError(this.name, 409, 'without a readable tree size');
      if (held > size)
        throw new WitnessRefusedError(this.name, 409, `it holds size ${held}, larger than the checkpoint's ${size}`);
      this.believed_size = held;
      answer = await this.post(held, size, checkpoint_note, consistency_proof);
    }
    if (answer.status === 409) this.believed_size = parseHeldSize(answer) ?? 0;
    if (answer.status !== 200) throw new WitnessRefusedError(this.name, answer.status, answer.body.trim());
    const cosignature = await this.verifiedCosignature(text, answer.body);
    this.believed_size = size;
    return cosignature;
  }

  private async post(
    old_size: number,
    size: number,
    checkpoint_note: string,
    consistency_proof: ConsistencyProofSource,
  ): Promise<{ status: number; content_type: string; body: string }> {
    const proof = old_size === 0 || old_size === size ? [] : await consistency_proof(old_size, size);
    const response = await (this.options.fetch ?? fetch)(`${this.witness.url.replace(/\/$/, '')}/add-checkpoint`, {
      method: 'POST',
      body: formatAddCheckpoint({ old_size, proof, checkpoint_note }),
      signal: AbortSignal.timeout(this.options.timeout_ms ?? 10_000),
    });
    return {
      status: response.status,
      content_type: response.headers.get('content-type') ?? '',
      body: await response.text(),
    };
  }

  /** The witness's line among those answered, verified over the checkpoint text; other keys' lines are ignored. */
  private async verifiedCosignature(text: string, body: string): Promise<Cosignature> {
    if (!body.endsWith('\n')) throw new Error(`witness ${this.name}: the answer does not end in a newline`);
    const verifier = noteVerifier(this.key);
    for (const line of body.slice(0, -1).split('\n')) {
      const signature = parseSignatureLine(line);
      if (signature.name !== this.key.name || signature.key_id !== this.key.key_id) continue;
      if (!(await verifier.verify(new TextEncoder().encode(text), signature.signature)))
        throw new Error(`witness ${this.name}: its cosignature does not verify`);
      return { line: `${line}\n`, signature, timestamp_seconds: cosignatureTimestamp(signature)! };
    }
    throw new Error(`witness ${this.name}: no cosignature of key ${this.name}+${keyIdHex(this.key.key_id)} answered`);
  }
}

function parseHeldSize(answer: { content_type: string; body: string }): number | undefined {
  if (!answer.content_type.startsWith(TREE_SIZE_CONTENT_TYPE)) return undefined;
  const match = /^(0|[1-9][0-9]*)\n$/.exec(answer.body);
  const size = Number(match?.[1]);
  return match && Number.isSafeInteger(size) ? size : undefined;
}
