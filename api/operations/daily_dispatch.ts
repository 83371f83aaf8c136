import { readFileSync } from 'node:fs';
import { parseKeyFile, type AgentKey } from '../../client/keys.js';
import { TesseraClient, TesseraError } from '../../client/sdk.js';
import { ACT_ROUTES } from '../../engine/index.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export interface DailyDispatchOptions {
  /** Minutes after UTC midnight (DISPATCH_DAILY_AT_UTC). */
  daily_at_minutes: number;
  founder_key: AgentKey;
  /** Where this server listens: the Dispatch goes in as any signed request does, over HTTP. */
  url: () => string;
  /** The server's clock (StartOptions.clock), never the host's directly: tests move it. */
  clock: () => number;
  /** Whether this node takes writes now: the embedded default always, a replicated society's leader while it leads. */
  writable: () => boolean;
  /** The Founder's primary key as the ledger has it now: a rotation since the key file was written makes that file's key no longer the Founder's. */
  founder_pubkey: () => string | undefined;
  /** When the newest Dispatch was published, if any: a day with one since its scheduled time needs none. */
  last_dispatch_at_ms: () => number | undefined;
  log: (line: Record<string, unknown>) => void;
  /** How often the clock is looked at. A timer set for the exact moment would miss a clock that jumps (a test's, a corrected host's). */
  check_every_ms?: number;
}

/** A failure the service may overcome (a lost answer, a 503 during a failover) is tried again after this long. */
const retry_after_ms = 5 * MINUTE_MS;

/**
 * The daily Dispatch, published by the service at a set UTC time: signed with the
 * Founder key and sent to this server's own POST /enactment/dispatch with a fresh nonce,
 * so its entry is the same as a hand-published one and verifies the same way. A day
 * that already has a Dispatch since its scheduled time (by hand) gets no other; a start
 * after the time catches up once, for today, never for the days the service was down.
 */
export class DailyDispatch {
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  /** The scheduled moment not to try again before retry_at_ms (a refusal: not before tomorrow's). */
  private held: { due_ms: number; retry_at_ms: number } | undefined;

  constructor(private readonly options: DailyDispatchOptions) {}

  start(): void {
    this.check();
    this.timer = setInterval(() => this.check(), this.options.check_every_ms ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.sending;
  }

  /** Today's scheduled moment (UTC), at or before now_ms, or undefined before it. */
  private dueMs(now_ms: number): number | undefined {
    const due_ms = Math.floor(now_ms / DAY_MS) * DAY_MS + this.options.daily_at_minutes * MINUTE_MS;
    return now_ms >= due_ms ? due_ms : undefined;
  }

  private check(): void {
    if (this.sending || !this.options.writable()) return;
    const now_ms = this.options.clock();
    const due_ms = this.dueMs(now_ms);
    if (due_ms === undefined) return;
    if ((this.options.last_dispatch_at_ms() ?? -Infinity) >= due_ms) return;
    if (this.held?.due_ms === due_ms && now_ms < this.held.retry_at_ms) return;
    this.sending = this.publish(due_ms, now_ms).finally(() => {
      this.sending = undefined;
    });
  }

  private async publish(due_ms: number, now_ms: number): Promise<void> {
    const scheduled_at = new Date(due_ms).toISOString();
    if (this.options.founder_key.public_key !== this.options.founder_pubkey()) {
      // Signed with it, the Dispatch would be refused SIG_INVALID, every day, saying less than this.
      this.held = { due_ms, retry_at_ms: due_ms + DAY_MS };
      this.options.log({
        event: 'daily_dispatch_failed',
        scheduled_at,
        error:
          "the key in the Founder key file is no longer the Founder's (rotated since): copy the current Founder key there, or publish by hand",
        retry: 'tomorrow',
      });
      return;
    }
    try {
      const client = new TesseraClient(loopbackUrl(this.options.url()), this.options.founder_key);
      const published = await client.signed<{ dispatch_id: number; disclosures_drained: number }>(
        'POST',
        ACT_ROUTES.enactment_dispatch,
        {},
      );
      this.held = undefined;
      this.options.log({
        event: 'daily_dispatch_published',
        dispatch_id: published.dispatch_id,
        disclosures: published.disclosures_drained,
        scheduled_at,
      });
    } catch (error) {
      // A refusal (a rotated key, the Founder's alone to fix) would be refused again all day.
      const refused = error instanceof TesseraError && error.status < 500;
      this.held = { due_ms, retry_at_ms: refused ? due_ms + DAY_MS : now_ms + retry_after_ms };
      this.options.log({
        event: 'daily_dispatch_failed',
        scheduled_at,
        error: error instanceof TesseraError ? `${error.status} ${error.code}` : String(error),
        retry: refused ? 'tomorrow' : 'in 5 minutes',
      });
    }
  }
}

/**
 * The scheduler DISPATCH_DAILY_AT_UTC asks for, when the Founder key is at hand in the
 * data folder; without it (the operator keeps the key elsewhere) the setting is said to
 * be idle in one log line, and the Founder publishes by hand.
 */
export async function dailyDispatchFor(
  setting: { daily_at_minutes: number | undefined; key_file: string | undefined },
  options: Omit<DailyDispatchOptions, 'daily_at_minutes' | 'founder_key'>,
): Promise<DailyDispatch | undefined> {
  const { daily_at_minutes, key_file } = setting;
  if (daily_at_minutes === undefined) return undefined;
  if (key_file === undefined) {
    options.log({
      event: 'daily_dispatch_off',
      why: 'DISPATCH_DAILY_AT_UTC is set, but no Founder key is in DATA_DIR',
    });
    return undefined;
  }
  let founder_key: AgentKey;
  try {
    founder_key = await parseKeyFile(JSON.parse(readFileSync(key_file, 'utf8')));
  } catch {
    // No message of the parser's: JSON.parse quotes what it could not read, which here is a private key.
    options.log({ event: 'daily_dispatch_off', why: `${key_file} is not a readable key file` });
    return undefined;
  }
  return new DailyDispatch({ ...options, daily_at_minutes, founder_key });
}

/** The address a request from this machine reaches the server at: a wildcard listening address is no destination. */
function loopbackUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}
