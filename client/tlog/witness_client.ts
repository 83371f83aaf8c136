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

/**
 * What one request to a witness may cost the log, set by its caller (api/log/witness_limits.ts
 * declares the service's): the request's time, answer read included, and the answer's bytes.
 */
export interface WitnessRequestLimits {
  timeout_ms: number;
  answer_bytes_max: number;
}

interface WitnessAnswer {
  status: number;
  content_type: string;
  body: string;
}

export class WitnessClient {
  private readonly key: VerifierKey;
  /** The size the witness is believed to hold for this log: 0 until it answers, then its cosigned size. */
  private believed_size = 0;

  constructor(
    readonly witness: WitnessEndpoint,
    private readonly options: WitnessRequestLimits & { fetch?: typeof fetch },
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
   * another size than believed: the request is made once more from that size. A 409
   * naming the very size sent is tlog-witness's answer to the held size with another
   * root — a fork. Throws WitnessRefusedError, or an Error when the answer is not a
   * valid cosignature, is too long, or `signal` (or the timeout) aborts the request.
   */
  async addCheckpoint(
    checkpoint_note: string,
    consistency_proof: ConsistencyProofSource,
    signal?: AbortSignal,
  ): Promise<Cosignature> {
    const { text } = parseNote(checkpoint_note);
    const { size } = parseCheckpoint(text);
    const ask = (old_size: number) => this.post(old_size, size, checkpoint_note, consistency_proof, signal);
    let old_size = this.believed_size;
    let answer = await ask(old_size);
    if (answer.status === 409) {
      old_size = this.heldSize(answer, old_size, size);
      this.believed_size = old_size;
      answer = await ask(old_size);
    }
    if (answer.status === 409) this.believed_size = this.heldSize(answer, old_size, size);
    if (answer.status !== 200) throw new WitnessRefusedError(this.name, answer.status, answer.body.trim());
    const cosignature = await this.verifiedCosignature(text, answer.body);
    this.believed_size = size;
    return cosignature;
  }

  /** The size a 409 says the witness holds, if the answer is about sizes; throws for every other 409. */
  private heldSize(answer: WitnessAnswer, old_size: number, size: number): number {
    const held = parseHeldSize(answer);
    if (held === undefined)
      throw new WitnessRefusedError(this.name, 409, answer.body.trim() || 'no readable tree size');
    if (held === old_size)
      throw new WitnessRefusedError(this.name, 409, `it holds size ${held} with another root: a fork`);
    if (held > size)
      throw new WitnessRefusedError(this.name, 409, `it holds size ${held}, larger than the checkpoint's ${size}`);
    return held;
  }

  private async post(
    old_size: number,
    size: number,
    checkpoint_note: string,
    consistency_proof: ConsistencyProofSource,
    signal: AbortSignal | undefined,
  ): Promise<WitnessAnswer> {
    const proof = old_size === 0 || old_size === size ? [] : await consistency_proof(old_size, size);
    const timeout = AbortSignal.timeout(this.options.timeout_ms);
    const response = await (this.options.fetch ?? fetch)(`${this.witness.url.replace(/\/$/, '')}/add-checkpoint`, {
      method: 'POST',
      body: formatAddCheckpoint({ old_size, proof, checkpoint_note }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      // The body is the log's to send to the witness it names, never to an address the witness names.
      redirect: 'manual',
    });
    if (response.status >= 300 && response.status < 400) {
      void response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      throw new WitnessRefusedError(
        this.name,
        response.status,
        `a redirect${location ? ` to ${location}` : ''}, not followed: a witness answers at its own address`,
      );
    }
    return {
      status: response.status,
      content_type: response.headers.get('content-type') ?? '',
      body: await this.boundedText(response),
    };
  }

  /**
   * The answer's text, read no further than answer_bytes_max: the real answer is a line
   * or a size, and a witness must not make the log hold whatever it sends.
   */
  private async boundedText(response: Response): Promise<string> {
    const bytes_max = this.options.answer_bytes_max;
    const too_long = () =>
      new Error(`witness ${this.name}: the answer is longer than ${bytes_max} bytes; not read further`);
    const declared = Number(response.headers.get('content-length') ?? 0);
    const reader = response.body?.getReader();
    if (!reader) return '';
    if (declared > bytes_max) {
      void reader.cancel().catch(() => {});
      throw too_long();
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > bytes_max) {
        void reader.cancel().catch(() => {});
        throw too_long();
      }
      chunks.push(value);
    }
    const body = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.byteLength;
    }
    return new TextDecoder().decode(body);
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

function parseHeldSize(answer: WitnessAnswer): number | undefined {
  if (!answer.content_type.startsWith(TREE_SIZE_CONTENT_TYPE)) return undefined;
  const match = /^(0|[1-9][0-9]*)\n$/.exec(answer.body);
  const size = Number(match?.[1]);
  return match && Number.isSafeInteger(size) ? size : undefined;
}
