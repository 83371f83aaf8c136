import { LedgerChecker, type WireEntry } from '../ledger_check.js';
import { fromBase64, toBase64 } from './base64.js';
import { hashesEqual, nobleHasher, type Hash, type Hasher } from './hasher.js';
import { CompactRange, verifyConsistency } from './merkle.js';
import { decodeBundle, tileHashes, tilePath, treeBundles, TILE_WIDTH, type TileId } from './tile_path.js';
import { openCheckpoint, type OpenedCheckpoint } from './trusted_checkpoint.js';

/** The checkpoint a reader saw last, kept between runs: the next one must extend it. */
export interface RememberedCheckpoint {
  origin: string;
  size: number;
  /** Standard base64, as in the checkpoint. */
  root_hash: string;
}

export type LogCheck =
  /** The log's verifier key is not the one this reader pinned (checked by the caller that keeps the pin). */
  | 'key'
  /** The checkpoint is not signed by the log's key, or is not a checkpoint. */
  | 'checkpoint'
  /** The log now names itself differently from the checkpoint remembered. */
  | 'origin'
  /** The log is smaller than when last seen, or not an extension of it: a rewritten history or a split view. */
  | 'consistency'
  /** A tile or an entry bundle the checkpoint's tree needs is missing or malformed, or they disagree. */
  | 'tiles'
  /** The entries hash to another root than the checkpoint signs. */
  | 'root'
  /** The ledger's own recipe (docs/protocol.md#the-ledger) refuses an entry. */
  | 'chain';

export interface LogVerifyReport {
  ok: boolean;
  origin?: string;
  /** The checkpoint checked; remember it only when ok. */
  checkpoint?: RememberedCheckpoint;
  /** The checkpoint it was checked against, if one was remembered. */
  previous?: RememberedCheckpoint;
  /** Entries whose leaf hashes were recomputed from the bundles. */
  entries_checked: number;
  /** Whether the ledger's chain recipe also ran over every entry. */
  chain_checked: boolean;
  failed?: { check: LogCheck; reason: string; seq?: number };
}

export interface LogVerifyOptions {
  /** The log's verifier key, `<origin>+<key id>+<key>`. */
  vkey: string;
  remembered?: RememberedCheckpoint;
  /** Also run the ledger's chain check (client/ledger_check.ts) over the bundles' entries: no second download. */
  check_chain?: boolean;
  fetcher?: typeof fetch;
  hasher?: Hasher;
  on_progress?: (entries_checked: number, tree_size: number) => void;
  /** Bundles (with their level-0 tiles) fetched ahead while one is checked. */
  bundles_in_flight?: number;
}

/**
 * Checks a transparency log from the outside with nothing but HTTP and its verifier
 * key: the newest checkpoint's signature; that it extends the checkpoint remembered
 * from the last run (a consistency proof, so the log can neither rewrite history nor
 * show this reader a history that forks from what it saw); and that the tree it signs
 * is made of the entries the log serves: every leaf of the level-0 tiles is
 * SHA-256(0x00 || entry) of the bundle's entry, and they fold to the signed root.
 */
export async function verifyLog(base_url: string, options: LogVerifyOptions): Promise<LogVerifyReport> {
  const log = new LogReader(base_url, options.fetcher ?? fetch);
  const hasher = options.hasher ?? nobleHasher;
  const report: LogVerifyReport = {
    ok: false,
    entries_checked: 0,
    chain_checked: options.check_chain ?? false,
    ...(options.remembered ? { previous: options.remembered } : {}),
  };
  const fail = (check: LogCheck, reason: string, seq?: number): LogVerifyReport => ({
    ...report,
    failed: { check, reason, ...(seq !== undefined ? { seq } : {}) },
  });

  const opened = await openCheckpoint(await log.text('checkpoint'), options.vkey);
  if (!opened.ok) return fail('checkpoint', opened.reason);
  const checkpoint = opened.checkpoint;
  report.origin = checkpoint.origin;
  report.checkpoint = { origin: checkpoint.origin, size: checkpoint.size, root_hash: toBase64(checkpoint.root) };

  if (options.remembered) {
    const problem = await consistencyProblem(log, hasher, options.remembered, checkpoint);
    if (problem) return fail(problem.check, problem.reason);
  }

  const range = new CompactRange(hasher);
  const checker = options.check_chain ? new LedgerChecker() : undefined;
  const bundles = treeBundles(checkpoint.size);
  const in_flight = Math.max(1, options.bundles_in_flight ?? 4);
  const pending: Promise<TilePair | string>[] = [];
  let next = 0;
  const fill = () => {
    while (next < bundles.length && pending.length < in_flight) pending.push(log.tilePair(bundles[next++]!));
  };
  fill();
  for (const bundle of bundles) {
    const pair = await pending.shift()!;
    fill();
    if (typeof pair === 'string') return fail('tiles', pair);
    for (let i = 0; i < bundle.width; i++) {
      const seq = bundle.index * TILE_WIDTH + i + 1;
      const entry = pair.entries[i]!;
      if (!hashesEqual(hasher.leaf(entry), pair.leaf_hashes[i]!))
        return fail('tiles', `the level-0 tile's hash of entry ${seq} is not SHA-256(0x00 || entry)`, seq);
      range.append(pair.leaf_hashes[i]!);
      if (checker) {
        const problem = await checker.check(parseEntry(entry));
        if (problem) return fail('chain', problem.reason, problem.seq);
      }
      report.entries_checked++;
    }
    options.on_progress?.(report.entries_checked, checkpoint.size);
  }
  const root = range.root();
  if (!hashesEqual(root, checkpoint.root))
    return fail(
      'root',
      `the ${checkpoint.size} entries the log serves hash to ${toBase64(root)}, not to the root ${report.checkpoint.root_hash} its checkpoint signs`,
    );
  return { ...report, ok: true };
}

async function consistencyProblem(
  log: LogReader,
  hasher: Hasher,
  old: RememberedCheckpoint,
  now: OpenedCheckpoint,
): Promise<{ check: LogCheck; reason: string } | undefined> {
  const seen = `the checkpoint remembered (size ${old.size}, root ${old.root_hash})`;
  if (old.origin !== now.origin)
    return { check: 'origin', reason: `the log's origin is now ${now.origin}, not ${old.origin} as remembered` };
  if (now.size < old.size)
    return {
      check: 'consistency',
      reason: `SPLIT VIEW OR REWRITTEN HISTORY: the log's checkpoint has ${now.size} entries, fewer than ${seen}`,
    };
  let old_root: Hash;
  try {
    old_root = fromBase64(old.root_hash);
  } catch {
    return { check: 'consistency', reason: 'the remembered root is not base64: the state file is damaged' };
  }
  let proof: Hash[] = [];
  if (now.size > old.size) {
    const answer = await log.json(`proof/consistency?old=${old.size}&new=${now.size}`);
    if (typeof answer === 'string')
      return {
        check: 'consistency',
        reason: `the log gives no consistency proof from ${old.size} to ${now.size}: ${answer}`,
      };
    try {
      proof = (answer as { consistency_proof: string[] }).consistency_proof.map(fromBase64);
    } catch {
      return { check: 'consistency', reason: 'the consistency proof is not a list of base64 hashes' };
    }
  }
  if (!verifyConsistency(hasher, old.size, now.size, old_root, now.root, proof))
    return {
      check: 'consistency',
      reason: `SPLIT VIEW OR REWRITTEN HISTORY: the log's checkpoint (size ${now.size}, root ${toBase64(now.root)}) is not an append-only extension of ${seen}`,
    };
  return undefined;
}

/** An entry bundle and the level-0 tile over the same leaves. */
interface TilePair {
  entries: Uint8Array[];
  leaf_hashes: Hash[];
}

function parseEntry(bytes: Uint8Array): WireEntry {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as WireEntry;
  } catch {
    // The checker reports an entry that is not an object at its place in the chain.
    return undefined as unknown as WireEntry;
  }
}

/** The log's public GET routes; a failure to serve is a message, so a download ahead never rejects unobserved. */
class LogReader {
  private readonly base: string;

  constructor(
    base_url: string,
    private readonly fetcher: typeof fetch,
  ) {
    this.base = `${base_url.replace(/\/+$/, '')}/log/`;
  }

  async text(path: string): Promise<string> {
    const response = await this.fetcher(this.base + path);
    if (!response.ok) throw new Error(`GET /log/${path}: HTTP ${response.status}`);
    return response.text();
  }

  async json(path: string): Promise<unknown> {
    const response = await this.fetcher(this.base + path);
    const text = await response.text();
    if (!response.ok) return `GET /log/${path}: HTTP ${response.status} ${text.slice(0, 300)}`;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return `GET /log/${path}: not JSON`;
    }
  }

  async tilePair(bundle: TileId): Promise<TilePair | string> {
    const [bundle_bytes, tile_bytes] = await Promise.all([this.tile(bundle), this.tile({ ...bundle, level: 0 })]);
    if (typeof bundle_bytes === 'string') return bundle_bytes;
    if (typeof tile_bytes === 'string') return tile_bytes;
    let entries: Uint8Array[];
    let leaf_hashes: Hash[];
    try {
      entries = decodeBundle(bundle_bytes);
      leaf_hashes = tileHashes(tile_bytes);
    } catch (error) {
      return `${tilePath(bundle)}: ${(error as Error).message}`;
    }
    // A full tile stands in for a partial one that is gone: its first hashes are the same.
    if (entries.length < bundle.width || leaf_hashes.length < bundle.width)
      return `${tilePath(bundle)}: ${entries.length} entries and ${leaf_hashes.length} leaf hashes, not ${bundle.width}`;
    return { entries: entries.slice(0, bundle.width), leaf_hashes: leaf_hashes.slice(0, bundle.width) };
  }

  /**
   * A tile's bytes. A partial tile may be gone once its full tile exists (tlog-tiles
   * lets servers drop them), so a 404 for a partial one falls back to the full one.
   */
  private async tile(tile: TileId): Promise<Uint8Array | string> {
    try {
      let response = await this.fetcher(this.base + tilePath(tile));
      if (response.status === 404 && tile.width < TILE_WIDTH)
        response = await this.fetcher(this.base + tilePath({ ...tile, width: TILE_WIDTH }));
      if (!response.ok) return `GET /log/${tilePath(tile)}: HTTP ${response.status}`;
      return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      return `GET /log/${tilePath(tile)}: ${(error as Error).message}`;
    }
  }
}
