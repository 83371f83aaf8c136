import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { formatCheckpoint } from '../../client/tlog/checkpoint.js';
import { nobleHasher } from '../../client/tlog/hasher.js';
import { CompactRange } from '../../client/tlog/merkle.js';
import { signNote } from '../../client/tlog/note.js';
import { noteSigner, parseSignerKey } from '../../client/tlog/note_keys.js';
import { decodeBundle, encodeBundle, tilePath, treeBundles, TILE_WIDTH } from '../../client/tlog/tile_path.js';

/** Paths below /log/ answered with these bytes instead of the real log's. */
export type LogForgery = Map<string, { body: Uint8Array | string; type: string }>;

/**
 * A proxy in front of a real society that serves the log's routes, or some of them
 * forged: what an operator showing one reader a different history would serve.
 */
export interface LogProxy {
  url: string;
  forgery: LogForgery;
  close(): Promise<void>;
}

export async function startLogProxy(upstream_url: string): Promise<LogProxy> {
  const forgery: LogForgery = new Map();
  const server: Server = createServer(async (req, res) => {
    const forged = forgery.get(req.url!.replace(/^\/log\//, ''));
    if (forged) {
      res.setHeader('content-type', forged.type);
      res.end(forged.body);
      return;
    }
    const upstream = await fetch(upstream_url + req.url);
    res.statusCode = upstream.status;
    res.setHeader('content-type', upstream.headers.get('content-type') ?? 'application/octet-stream');
    res.end(new Uint8Array(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forgery,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The log's entries at `size`, from its bundles: the exact leaf bytes. */
export async function logEntries(url: string, size: number): Promise<Uint8Array[]> {
  const entries: Uint8Array[] = [];
  for (const bundle of treeBundles(size)) {
    const response = await fetch(`${url}/log/${tilePath(bundle)}`);
    if (!response.ok) throw new Error(`${tilePath(bundle)}: HTTP ${response.status}`);
    entries.push(...decodeBundle(new Uint8Array(await response.arrayBuffer())));
  }
  return entries.slice(0, size);
}

/**
 * The bundles and level-0 tiles of a log made of `entries`, and, with the log's signing
 * key from its data folder, a checkpoint of it signed as the real log signs.
 */
export async function forgeLog(entries: Uint8Array[], options: { sign_with_data_dir?: string }): Promise<LogForgery> {
  const forgery: LogForgery = new Map();
  const range = new CompactRange(nobleHasher);
  for (const bundle of treeBundles(entries.length)) {
    const slice = entries.slice(bundle.index * TILE_WIDTH, bundle.index * TILE_WIDTH + bundle.width);
    const tile = new Uint8Array(32 * slice.length);
    slice.forEach((entry, i) => {
      const leaf = nobleHasher.leaf(entry);
      tile.set(leaf, 32 * i);
      range.append(leaf);
    });
    forgery.set(tilePath(bundle), { body: encodeBundle(slice), type: 'application/octet-stream' });
    forgery.set(tilePath({ ...bundle, level: 0 }), { body: tile, type: 'application/octet-stream' });
  }
  if (options.sign_with_data_dir) {
    const key = await parseSignerKey(readFileSync(join(options.sign_with_data_dir, 'log.key'), 'utf8').trim());
    const text = formatCheckpoint({ origin: key.name, size: entries.length, root_hash: range.root(), extensions: [] });
    forgery.set('checkpoint', { body: await signNote(text, [noteSigner(key)]), type: 'text/plain; charset=utf-8' });
  }
  return forgery;
}

/** The entry with one byte of a string value changed: still JSON, another leaf. */
export function editedEntry(entry: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(entry);
  const at = text.indexOf('"at":"') + '"at":"'.length;
  const edited = new TextEncoder().encode(text);
  edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
  return edited;
}
