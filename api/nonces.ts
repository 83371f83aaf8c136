import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsumedNonce } from '../engine/index.js';

export interface NonceBookOptions {
  clock: () => number;
  nonce_ttl_seconds?: number;
  /** The MAC key (at least 32 bytes); by default a fresh random one for this process. */
  secret?: Buffer;
  /**
   * Spent nonces remembered at most. Past it, the spent nonces that expire first are
   * forgotten and every nonce expiring no later than they do is refused as if expired.
   */
  spent_max?: number;
}

/** Layout of a nonce before base64url: expiry (ms, 48 bits), counter (48 bits), then the MAC's first 144 bits. */
const expiry_offset = 0;
const counter_offset = 6;
const fields_bytes = 12;
const mac_bytes = 18;
const nonce_bytes = fields_bytes + mac_bytes;
/** 30 bytes are exactly 40 base64url characters: no padding, no unused bits, one spelling per nonce. */
const NONCE_FORMAT = /^[A-Za-z0-9_-]{40}$/;

/**
 * Stateless nonces (docs/protocol.md#nonces-and-signatures): a nonce is HMAC-SHA256 under a server secret
 * over (expiry, counter, agent id), carrying the expiry and counter in clear, so it is
 * checked on use without having been stored. Issuing costs no memory, so asking for
 * nonces, in anyone's name and at any rate, cannot push anyone's nonce out. Only spent
 * nonces are remembered, until they expire, which keeps each one single-use.
 *
 * The secret is made fresh for each process rather than kept in the data folder. A
 * restart then invalidates outstanding nonces, as random nonces held in memory always
 * did (clients fetch new ones), and the spent set never has to outlive the process: no
 * nonce from before a crash or a restore from backup can verify again, whatever the store
 * remembers of what was spent. The spent nonces written in each tick's commit remain a
 * record, not something validity depends on. A persisted secret would buy only nonces
 * that survive restarts, at the price of a secret file to guard and of a spent set that
 * must be reloaded from a store a restore may have rolled back.
 */
export class NonceBook {
  readonly nonce_ttl_seconds: number;
  private readonly secret: Buffer;
  private readonly spent_max: number;
  /** Unique per issue in this process, which with the per-process secret makes it the nonce's identity. */
  private counter = 0;
  /** Spent nonces' counters by expiry second, so pruning drops whole seconds at once. */
  private readonly spent = new Map<number, Set<number>>();
  private spent_total = 0;
  /** Nonces expiring before this are refused: raised only when the spent set is full. */
  private expiry_floor_ms = 0;
  private next_prune_ms = 0;
  // Scratch space reused by every issue and check: the hot path allocates only the HMAC.
  private readonly nonce = Buffer.alloc(nonce_bytes);
  private readonly fields = Buffer.alloc(fields_bytes);
  private readonly presented_mac = Buffer.alloc(mac_bytes);
  private readonly expected_mac = Buffer.alloc(mac_bytes);

  constructor(private readonly options: NonceBookOptions) {
    this.nonce_ttl_seconds = options.nonce_ttl_seconds ?? 300;
    this.spent_max = options.spent_max ?? 1_000_000;
    if (!(this.spent_max >= 1)) throw new Error('spent_max must be at least 1');
    this.secret = options.secret ?? randomBytes(32);
    if (this.secret.length < 32) throw new Error('the nonce secret must be at least 32 bytes');
  }

  /** How many spent nonces are remembered now (bounded by spent_max). */
  get spent_count(): number {
    return this.spent_total;
  }

  issue(agent_id: string): { agent: string; nonce: string; expires_at_ms: number } {
    const expires_at_ms = this.options.clock() + this.nonce_ttl_seconds * 1000;
    this.fields.writeUIntBE(expires_at_ms, expiry_offset, 6);
    this.fields.writeUIntBE(this.counter++, counter_offset, 6);
    this.fields.copy(this.nonce, 0);
    this.mac(agent_id).copy(this.nonce, fields_bytes, 0, mac_bytes);
    return { agent: agent_id, nonce: this.nonce.toString('base64url'), expires_at_ms };
  }

  /** True if the nonce was issued by this process for this agent, has not expired and is unspent. */
  isValid(nonce: string, agent_id: string): boolean {
    if (!this.decode(nonce)) return false;
    const now = this.options.clock();
    this.pruneIfDue(now);
    const expires_at_ms = this.nonce.readUIntBE(expiry_offset, 6);
    if (expires_at_ms <= now || expires_at_ms < this.expiry_floor_ms) return false;
    this.nonce.copy(this.fields, 0, 0, fields_bytes);
    this.nonce.copy(this.presented_mac, 0, fields_bytes, nonce_bytes);
    this.mac(agent_id).copy(this.expected_mac, 0, 0, mac_bytes);
    if (!timingSafeEqual(this.presented_mac, this.expected_mac)) return false;
    return !this.spent.get(secondOf(expires_at_ms))?.has(this.nonce.readUIntBE(counter_offset, 6));
  }

  /**
   * Spends a nonce that isValid has just accepted, in the same synchronous turn (so two
   * requests racing with one nonce cannot both pass): from now on it is refused.
   */
  spend(nonce: string): ConsumedNonce {
    if (!this.decode(nonce)) throw new Error('spend of a malformed nonce');
    const expires_at_ms = this.nonce.readUIntBE(expiry_offset, 6);
    const counter = this.nonce.readUIntBE(counter_offset, 6);
    const second = secondOf(expires_at_ms);
    let bucket = this.spent.get(second);
    if (bucket?.has(counter)) throw new Error('spend of a nonce already spent');
    while (this.spent_total >= this.spent_max) this.forgetEarliestSecond();
    // Forgetting may have put this very nonce under the floor, which refuses it from now on without remembering it.
    if (expires_at_ms < this.expiry_floor_ms) return { nonce, expires_at_ms };
    if (!bucket) {
      bucket = new Set();
      this.spent.set(second, bucket);
    }
    bucket.add(counter);
    this.spent_total++;
    return { nonce, expires_at_ms };
  }

  /** Fills this.nonce with the decoded bytes; false if the text is not a nonce's shape. */
  private decode(nonce: string): boolean {
    return NONCE_FORMAT.test(nonce) && this.nonce.write(nonce, 0, nonce_bytes, 'base64url') === nonce_bytes;
  }

  private mac(agent_id: string): Buffer {
    return createHmac('sha256', this.secret).update(this.fields).update(agent_id).digest();
  }

  /** Once a second at most: the seconds wholly in the past can never be presented again. */
  private pruneIfDue(now: number): void {
    if (now < this.next_prune_ms) return;
    this.next_prune_ms = now + 1000;
    for (const [second, bucket] of this.spent) {
      if ((second + 1) * 1000 <= now) {
        this.spent.delete(second);
        this.spent_total -= bucket.size;
      }
    }
  }

  /**
   * The hard cap's way out, which neither grows memory nor reopens a replay: drop the
   * spent nonces that expire first and refuse, as expired, everything expiring by then.
   * Under a sustained spend rate above spent_max / ttl the lifetime of a nonce shrinks
   * to about spent_max / rate; clients holding an older one fetch a fresh one.
   */
  private forgetEarliestSecond(): void {
    let earliest = Infinity;
    for (const second of this.spent.keys()) if (second < earliest) earliest = second;
    const bucket = this.spent.get(earliest);
    if (!bucket) return;
    this.spent.delete(earliest);
    this.spent_total -= bucket.size;
    this.expiry_floor_ms = Math.max(this.expiry_floor_ms, (earliest + 1) * 1000);
  }
}

/** The expiry a nonce of this format carries in clear; undefined for text that is not one. Says nothing of its validity. */
export function nonceExpiryMs(nonce: string): number | undefined {
  if (!NONCE_FORMAT.test(nonce)) return undefined;
  return Buffer.from(nonce.slice(0, 8), 'base64url').readUIntBE(expiry_offset, 6);
}

function secondOf(ms: number): number {
  return Math.floor(ms / 1000);
}
