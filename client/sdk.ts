import type { AgentKey } from './keys.js';
import { solveChallenge, type PomChallenge } from './pom_solver.js';
import { signText } from './keys.js';
import { verifyReceipt, type Receipt, type ReceiptCheck } from './tlog/receipt.js';
import { followLedger, type FollowOptions } from './event_stream.js';
import type { WireEntry } from './ledger_check.js';
import {
  HEADER_AGENT_ID,
  HEADER_NEXT_NONCE,
  HEADER_NEXT_NONCE_EXPIRES_AT,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from './protocol.js';
import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_SENDING_TIMEOUT_MS,
  OutcomeUnknownError,
  SYSTEM_CLOCK,
  budgetSpentReason,
  decideAfterRefusedNonce,
  keepsAnswers,
  nonceValidUntilMs,
  sendWithRetries,
  type LoopOutcome,
  type RetryClock,
  type RetryPolicy,
} from './retry_policy.js';
import { UnreachableError, unreachableError } from './unreachable.js';

export { DEFAULT_RETRY_POLICY, OutcomeUnknownError, UnreachableError, type RetryClock, type RetryPolicy };

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

export interface ClientOptions {
  /** The clock the retries wait on and nonces age by; a simulator of failovers hands in its own. */
  clock?: RetryClock;
  retry_policy?: RetryPolicy;
}

/** A nonce held for signing, with what this machine's clock knows of its life. */
interface HeldNonce {
  nonce: string;
  received_at_ms: number;
  /** Until when it surely was valid (nonceValidUntilMs): a refusal before then proves a lost request unapplied. */
  valid_until_ms: number;
}

/** Nonces live 300 s (docs/protocol.md#nonces-and-signatures); one older than this is left alone, as it might expire in flight. */
const next_nonce_used_within_ms = 240_000;

/**
 * A small typed SDK over fetch. It signs every state-changing request with the
 * agent's key, with the nonce the previous answer carried (X-Next-Nonce) or else a
 * fresh one from GET /api/v1/nonce; bodies are sent exactly as they are signed,
 * with every declared default written out. Requests ride through a failover of a
 * replicated society as client/retry_policy.ts decides.
 */
export class TesseraClient {
  readonly base_url: string;
  /** Per agent id, the nonce the last signed answer handed over, unused so far. */
  private readonly next_nonces = new Map<string, HeldNonce>();
  private readonly clock: RetryClock;
  private readonly retry_policy: RetryPolicy;

  constructor(
    base_url: string,
    readonly key?: AgentKey,
    private readonly fetcher: typeof fetch = fetch,
    options: ClientOptions = {},
  ) {
    this.base_url = base_url.replace(/\/+$/, '');
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.retry_policy = options.retry_policy ?? DEFAULT_RETRY_POLICY;
  }

  async get<T = unknown>(path: string): Promise<T> {
    return (await this.decode(await this.fetched(this.base_url + path))) as T;
  }

  /** The ledger as it grows, entry by entry, resuming by itself after a dropped connection (client/event_stream.ts). */
  follow(options: FollowOptions = {}): AsyncGenerator<WireEntry> {
    return followLedger(this.base_url, options, this.fetcher);
  }

  async nonce(agent_id: string): Promise<string> {
    return (await this.freshNonce(agent_id)).nonce;
  }

  private async freshNonce(agent_id: string): Promise<HeldNonce> {
    const asked_at_ms = this.clock.now_ms();
    const { nonce, expires_at } = await this.get<{ nonce: string; expires_at?: string }>(
      `/api/v1/nonce?agent=${encodeURIComponent(agent_id)}`,
    );
    const received_at_ms = this.clock.now_ms();
    return { nonce, received_at_ms, valid_until_ms: nonceValidUntilMs({ asked_at_ms, received_at_ms, expires_at }) };
  }

  /**
   * Signs and sends one request; `signer` defaults to the client's key, `agent_id` to
   * the signer's id. When the network loses the request or its answer, the very same
   * request (nonce and signature too) is sent again: the server answers a retry of an
   * applied one with its kept answer, and applies nothing twice. A refused nonce (the
   * server restarted, or another node of a replicated society now writes) is replaced
   * and the request signed again, once, only when the refusal proves the request was not
   * applied; when nothing can prove either, OutcomeUnknownError (decideAfterRefusedNonce).
   */
  async signed<T = unknown>(
    method: string,
    path: string,
    body: unknown,
    signer = this.requireKey(),
    agent_id = signer.agent_id,
  ): Promise<T> {
    const request = `${method} ${path}`;
    let nonce = this.takeNextNonce(agent_id) ?? (await this.freshNonce(agent_id));
    for (let re_signed = false; ; re_signed = true) {
      const sent = await this.sentSigned(nonce.nonce, method, path, body, signer, agent_id);
      if ('failed' in sent) {
        if (!sent.answer_lost) throw sent.failed;
        throw new OutcomeUnknownError(request, agent_id, budgetSpentReason(this.retry_policy), sent.failed);
      }
      try {
        return (await this.decode(sent.answer)) as T;
      } catch (error) {
        if (!(error instanceof TesseraError)) throw error;
        // A 5xx (a 503 the budget left no time to wait out) says nothing of a sending that went unanswered.
        if (sent.answer_lost && error.status >= 500)
          throw new OutcomeUnknownError(request, agent_id, budgetSpentReason(this.retry_policy), error);
        if (error.code !== 'NONCE_INVALID') throw error;
        const next = decideAfterRefusedNonce({
          answer_lost: sent.answer_lost,
          keeps_answers: keepsAnswers(path),
          refused_at_ms: this.clock.now_ms(),
          nonce_valid_until_ms: nonce.valid_until_ms,
          re_signed,
        });
        if ('outcome_unknown' in next) throw new OutcomeUnknownError(request, agent_id, next.outcome_unknown, error);
        if ('refused' in next) throw error;
        nonce = await this.freshNonce(agent_id);
      }
    }
  }

  /** Signs with `nonce` and sends until an answer is final; keeps the nonce the answer hands over. */
  private async sentSigned(
    nonce: string,
    method: string,
    path: string,
    body: unknown,
    signer: AgentKey,
    agent_id: string,
  ): Promise<LoopOutcome<Response>> {
    const canonical = canonicalBody(body);
    const text = signingString({ method, path, agent_id, nonce, body_sha256: await sha256Hex(canonical) });
    const headers: Record<string, string> = {
      [HEADER_AGENT_ID]: agent_id,
      [HEADER_NONCE]: nonce,
      [HEADER_SIGNATURE]: await signText(signer, text),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // Before the first sending: the nonce handed over was issued after this, whichever sending got it.
    const asked_at_ms = this.clock.now_ms();
    const sent = await this.sentUntilFinal(this.base_url + path, {
      method,
      headers,
      ...(body !== undefined ? { body: canonical } : {}),
    });
    if ('answer' in sent) this.keepNextNonce(agent_id, sent.answer, asked_at_ms);
    return sent;
  }

  private keepNextNonce(agent_id: string, answer: Response, asked_at_ms: number): void {
    const nonce = answer.headers.get(HEADER_NEXT_NONCE);
    if (!nonce) return;
    const received_at_ms = this.clock.now_ms();
    const expires_at = answer.headers.get(HEADER_NEXT_NONCE_EXPIRES_AT);
    this.next_nonces.set(agent_id, {
      nonce,
      received_at_ms,
      valid_until_ms: nonceValidUntilMs({ asked_at_ms, received_at_ms, expires_at }),
    });
  }

  /**
   * The handed-over nonce for this agent, used at most once, and only while young: its
   * age is measured on this machine's clock, so a skewed clock cannot matter.
   */
  private takeNextNonce(agent_id: string): HeldNonce | undefined {
    const next = this.next_nonces.get(agent_id);
    this.next_nonces.delete(agent_id);
    return next && this.clock.now_ms() - next.received_at_ms < next_nonce_used_within_ms ? next : undefined;
  }

  /**
   * The request sent as client/retry_policy.ts decides, the same each time; a last failure of the
   * network's names the URL and why (UnreachableError) rather than fetch's bare "fetch failed".
   */
  private async sentUntilFinal(url: string, init?: RequestInit): Promise<LoopOutcome<Response>> {
    const timeout_ms = this.retry_policy.sending_timeout_ms ?? DEFAULT_SENDING_TIMEOUT_MS;
    const sent = await sendWithRetries({
      send: () =>
        this.fetcher(url, resendable(url, init) ? { ...init, signal: AbortSignal.timeout(timeout_ms) } : init),
      clock: this.clock,
      policy: this.retry_policy,
      discard: (answer) => answer.body?.cancel(),
    });
    if (!('failed' in sent)) return sent;
    return { ...sent, failed: unreachableError(url, sent.failed) ?? sent.failed };
  }

  /** A read's final answer; a read has no outcome to be unknown, so a failure is thrown as it is (UnreachableError when the network's). */
  private async fetched(url: string): Promise<Response> {
    const sent = await this.sentUntilFinal(url);
    if ('failed' in sent) throw sent.failed;
    return sent.answer;
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
    const response = await this.fetched(`${this.base_url}/log/key`);
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

/**
 * Whether a sending that waits too long may be given up and sent again: a read, or a
 * request to a route that keeps its answer for a resend. A payment or operator request
 * (a restore drill replays the whole store, minutes on a large one) is left to answer
 * however long it takes: a resend of it could not learn its outcome.
 */
function resendable(url: string, init: RequestInit | undefined): boolean {
  const method = init?.method ?? 'GET';
  return method === 'GET' || method === 'HEAD' || keepsAnswers(new URL(url).pathname);
}
