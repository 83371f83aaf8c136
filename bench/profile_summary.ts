import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and says where the busy time went: each
 * function's share of the samples that were not idle, by its own time and by the
 * time spent in it and what it called. `node dist/bench/profile_summary.js FILE [top]`.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
  /** Written by bench/measure's profileTask: the timed calls' spans; samples outside them are preparation. */
  timed_windows_us?: [number, number][];
}

export interface ProfileShares {
  /** Only the samples inside the bench's timed calls were counted (the untimed preparation left out). */
  timed_only: boolean;
  busy_ms: number;
  idle_ms: number;
  self: [string, number][];
  inclusive: [string, number][];
}

const NOT_WORK = new Set(['(idle)', '(root)', '(program)']);

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? url.split('/').slice(-2).join('/') : '';
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
}

export function profileShares(file: string, top = 25): ProfileShares {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const by_id = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy_us = 0;
  let idle_us = 0;
  const windows = profile.timed_windows_us;
  let at_us = profile.startTime;
  let window = 0;
  profile.samples.forEach((id, index) => {
    const delta_us = profile.timeDeltas[index] ?? 0;
    at_us += delta_us;
    if (windows) {
      while (window < windows.length && windows[window]![1] < at_us) window++;
      if (window === windows.length || windows[window]![0] > at_us) return;
    }
    const leaf = by_id.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle_us += delta_us;
      return;
    }
    busy_us += delta_us;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + delta_us);
    // Each function once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(by_id.get(at)!);
      if (NOT_WORK.has(by_id.get(at)!.callFrame.functionName) || seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta_us);
    }
  });
  const shares = (totals: Map<string, number>): [string, number][] =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => [name, us / busy_us]);
  return {
    timed_only: windows !== undefined,
    busy_ms: busy_us / 1000,
    idle_ms: idle_us / 1000,
    self: shares(self),
    inclusive: shares(inclusive),
  };
}

export function formatShares(shares: ProfileShares): string {
  const rows = (list: [string, number][]) =>
    list.map(([name, share]) => `${(share * 100).toFixed(1).padStart(6)}%  ${name}`);
  return [
    `busy ${shares.busy_ms.toFixed(0)} ms, idle ${shares.idle_ms.toFixed(0)} ms${shares.timed_only ? ' (the timed calls only)' : ''}`,
    'busy time by function, own time:',
    ...rows(shares.self),
    'busy time by function, with what it called:',
    ...rows(shares.inclusive),
  ].join('\n');
}

/**
 * Prints the summary of a server child's profile written into `dir` (LOAD_PROFILE): the
 * server writes its profiles as it exits, and the largest file is its main thread.
 */
export function printServerProfile(dir: string, top = 25): void {
  const [largest] = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (largest)
    console.log(`profile of the server's main thread, ${largest}:\n${formatShares(profileShares(largest, top))}`);
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** A sampled heap profile (.heapprofile): each function's share of the bytes allocated, by its own allocations. */
export function heapShares(file: string, top = 25): string {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const bytes = new Map<string, number>();
  const walk = (node: HeapNode): void => {
    const name = label(node as unknown as ProfileNode);
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  };
  walk(head);
  const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
  return [
    `allocated (sampled) ${(total / 1e6).toFixed(1)} MB; by function, own allocations:`,
    ...[...bytes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, size]) => `${((100 * size) / total).toFixed(1).padStart(6)}%  ${name}`),
  ].join('\n');
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node dist/bench/profile_summary.js FILE.cpuprofile|FILE.heapprofile [top]');
    process.exit(2);
  }
  console.log(
    file.endsWith('.heapprofile')
      ? heapShares(file, Number(top ?? 25))
      : formatShares(profileShares(file, Number(top ?? 25))),
  );
}
