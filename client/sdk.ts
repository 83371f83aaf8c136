import type { AgentKey } from './keys.js';
import { solveChallenge, type PomChallenge } from './pom_solver.js';
import { signText } from './keys.js';
import { verifyReceipt, type Receipt, type ReceiptCheck } from './tlog/receipt.js';
import { followLedger, type FollowOptions } from './event_stream.js';
import type { WireEntry } from './ledger_check.js';
import {
  HEADER_AGENT_ID,
  HEADER_NEXT_NONCE,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from './protocol.js';

/** A refusal from the service, with its code and the whole body for details. */
export class TesseraError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${messageOf(body)}`);
  }
}

function messageOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const { message, detail } = body as { message?: string; detail?: unknown };
    if (message) return message;
    if (detail) return JSON.stringify(detail);
  }
  return String(body);
}

/** A signed act's answer: the receipt proves its opening entry is on the log (client/tlog/receipt.ts). */
export interface ActAnswer<T = unknown> {
  act: string;
  result: T;
  ledger: { first_seq: number; last_seq: number };
  /** Absent only for the acts that are reads (world_look and the like): they land nowhere. */
  receipt?: Receipt;
}

export interface PomAnswer {
  challenge_id: string;
  puzzle_solution: string;
}

/**
 * A small typed SDK over fetch. It signs every state-changing request with the
 * agent's key, with the nonce the previous answer carried (X-Next-Nonce) or else a
 * fresh one from GET /api/v1/nonce; bodies are sent exactly as they are signed,
 * with every declared default written out.
 */
/** Nonces live 300 s (PROTOCOL.md section 3); one older than this is left alone, as it might expire in flight. */
const next_nonce_used_within_ms = 240_000;

export class TesseraClient {
  readonly base_url: string;
  /** Per agent id, the nonce the last signed answer handed over, unused so far. */
  private readonly next_nonces = new Map<string, { nonce: string; received_at_ms: number }>();

  constructor(
    base_url: string,
    readonly key?: AgentKey,
    private readonly fetcher: typeof fetch = fetch,
  ) {
    this.base_url = base_url.replace(/\/+$/, '');
  }

  async get<T = unknown>(path: string): Promise<T> {
    const response = await sentWithRetries(() => this.fetcher(this.base_url + path));
    return (await this.decode(response)) as T;
  }

  /** The ledger as it grows, entry by entry, resuming by itself after a dropped connection (client/event_stream.ts). */
  follow(options: FollowOptions = {}): AsyncGenerator<WireEntry> {
    return followLedger(this.base_url, options, this.fetcher);
  }

  async nonce(agent_id: string): Promise<string> {
    return (await this.get<{ nonce: string }>(`/api/v1/nonce?agent=${encodeURIComponent(agent_id)}`)).nonce;
  }

  /**
   * Signs and sends one request; `signer` defaults to the client's key, `agent_id` to
   * the signer's id. A nonce that the server no longer knows (it restarted, it expired,
   * or another node of a replicated society now writes) is refused before anything is
   * touched, so the request is then signed again once with a fresh nonce. Had the first
   * request been applied, the server would have answered its retry with the kept answer
   * (Idempotent-Replayed) instead of refusing the nonce.
   */
  async signed<T = unknown>(
    method: string,
    path: string,
    body: unknown,
    signer = this.requireKey(),
    agent_id = signer.agent_id,
  ): Promise<T> {
    const handed_over = this.takeNextNonce(agent_id);
    const sending: Sending = { resent: false };
    try {
      return await this.signedWith<T>(
        handed_over ?? (await this.nonce(agent_id)),
        method,
        path,
        body,
        signer,
        agent_id,
        sending,
      );
    } catch (error) {
      if (!(error instanceof TesseraError) || error.code !== 'NONCE_INVALID') throw error;
      // A request sent once and refused for its nonce was not applied. One resent after a lost answer
      // may have been, on a route that keeps no answer for retries (payments, operator): not signed again.
      if (!handed_over && sending.resent) throw error;
      return this.signedWith<T>(await this.nonce(agent_id), method, path, body, signer, agent_id, { resent: false });
    }
  }

  private async signedWith<T>(
    nonce: string,
    method: string,
    path: string,
    body: unknown,
    signer: AgentKey,
    agent_id: string,
    sending: Sending,
  ): Promise<T> {
    const canonical = canonicalBody(body);
    const text = signingString({ method, path, agent_id, nonce, body_sha256: await sha256Hex(canonical) });
    const headers: Record<string, string> = {
      [HEADER_AGENT_ID]: agent_id,
      [HEADER_NONCE]: nonce,
      [HEADER_SIGNATURE]: await signText(signer, text),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The very same request (nonce and signature too) is sent again when the network lost it or
    // its answer: the server answers a retry with the first answer, and applies nothing twice.
    const response = await sentWithRetries(
      () =>
        this.fetcher(this.base_url + path, {
          method,
          headers,
          ...(body !== undefined ? { body: canonical } : {}),
        }),
      sending,
    );
    const next = response.headers.get(HEADER_NEXT_NONCE);
    if (next) this.next_nonces.set(agent_id, { nonce: next, received_at_ms: Date.now() });
    return (await this.decode(response)) as T;
  }

  /**
   * The handed-over nonce for this agent, used at most once, and only while young: its
   * age is measured on this machine's clock, so a skewed clock cannot matter.
   */
  private takeNextNonce(agent_id: string): string | undefined {
    const next = this.next_nonces.get(agent_id);
    this.next_nonces.delete(agent_id);
    return next && Date.now() - next.received_at_ms < next_nonce_used_within_ms ? next.nonce : undefined;
  }

  register(handle: string, options: { declared_runtime?: string; backup_pubkey?: string | null } = {}) {
    const key = this.requireKey();
    return this.signed<{ agent_id: string; handle: string }>('POST', '/api/v1/register', {
      pubkey: key.public_key,
      handle,
      declared_runtime: options.declared_runtime ?? '',
      backup_pubkey: options.backup_pubkey ?? null,
    });
  }

  registerBackupKey(backup_pubkey: string) {
    return this.signed('POST', '/api/v1/keys/backup', { backup_pubkey });
  }

  /** Installs a new primary key, signed by the backup key under this agent's id. */
  rotateKey(backup: AgentKey, new_pubkey: string, agent_id = this.requireKey().agent_id) {
    return this.signed('POST', '/api/v1/keys/rotate', { new_pubkey }, backup, agent_id);
  }

  /**
   * Performs an act. The payload must carry every field its schema defaults, as it is
   * signed. If the act needs Proof of Machine, the client asks for a challenge, solves
   * it and sends the act again, once.
   */
  async act<T = unknown>(act: string, payload: Record<string, unknown> = {}, pom?: PomAnswer): Promise<ActAnswer<T>> {
    const send = (answer?: PomAnswer) =>
      this.signed<ActAnswer<T>>('POST', '/api/v1/act', {
        act,
        challenge_id: answer?.challenge_id ?? null,
        puzzle_solution: answer?.puzzle_solution ?? null,
        payload,
      });
    try {
      return await send(pom);
    } catch (error) {
      if (pom || !(error instanceof TesseraError) || error.code !== 'POM_REQUIRED') throw error;
      return send(await this.solvePom(act));
    }
  }

  /** Asks for a challenge for `intent` and answers it. */
  async solvePom(intent: string): Promise<PomAnswer> {
    const challenge = await this.signed<PomChallenge>('POST', '/api/v1/pom/challenge', { intent });
    return { challenge_id: challenge.challenge_id, puzzle_solution: await solveChallenge(challenge) };
  }

  status() {
    return this.get<Record<string, unknown>>('/api/v1/status');
  }

  /** The receipt of ledger entry `seq` against the newest checkpoint: keep it, check it offline with verifyReceipt. */
  receipt(seq: number): Promise<Receipt> {
    return this.get<Receipt>(`/log/receipt/${seq}`);
  }

  /** The log's verifier key as it serves it; pin it (or compare it with a copy you trust) rather than fetch it each time. */
  async logKey(): Promise<string> {
    const response = await this.fetcher(`${this.base_url}/log/key`);
    // A refusal is thrown as TesseraError, like every other answer's; the key itself is text, not JSON.
    if (!response.ok) await this.decode(response);
    return (await response.text()).trim();
  }

  /** Checks a receipt offline against the log's verifier key (no request is made). */
  verifyReceipt(receipt: unknown, vkey: string): Promise<ReceiptCheck> {
    return verifyReceipt(receipt, vkey);
  }

  private requireKey(): AgentKey {
    if (!this.key) throw new Error('this call is signed: give the client a key');
    return this.key;
  }

  private async decode(response: Response): Promise<unknown> {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text for the error message.
    }
    if (!response.ok) {
      const code =
        body && typeof body === 'object' && 'error' in body
          ? String((body as { error: unknown }).error)
          : response.status === 422
            ? 'VALIDATION_FAILED'
            : 'HTTP_ERROR';
      throw new TesseraError(response.status, code, body);
    }
    return body;
  }
}

/** Whether a request had to be sent again after the network lost it or its answer. */
interface Sending {
  resent: boolean;
}

/** Waits before each resend of a request the network failed: three tries after the first. */
const network_retry_delays_ms = [250, 1000, 4000];
/** How long a request answered 503 with Retry-After (a failover under way, a full queue) is sent again, at most. */
const unavailable_retry_ms = 20_000;

/**
 * Sends, and sends the same again after a network failure (fetch rejects with a
 * TypeError), a few times; and again after a 503 with Retry-After, for a while: that
 * answer (NOT_LEADER while a replicated society changes writer, QUEUE_FULL) means
 * nothing was done or spent, so the very same request is good to send again.
 */
async function sentWithRetries(send: () => Promise<Response>, sending: Sending = { resent: false }): Promise<Response> {
  const give_up_at_ms = Date.now() + unavailable_retry_ms;
  let network_failures = 0;
  for (;;) {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      const delay_ms = network_retry_delays_ms[network_failures++];
      if (!(error instanceof TypeError) || delay_ms === undefined) throw error;
      sending.resent = true;
      await new Promise((resolve) => setTimeout(resolve, delay_ms));
      continue;
    }
    const retry_after_seconds = Number(response.headers.get('retry-after'));
    if (
      response.status !== 503 ||
      !(retry_after_seconds > 0) ||
      Date.now() + retry_after_seconds * 1000 > give_up_at_ms
    )
      return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, retry_after_seconds * 1000));
  }
}
