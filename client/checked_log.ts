import { recallLog, rememberLog } from './log_state.js';
import { verifyLog, type LogVerifyReport } from './tlog/verify_log.js';

export interface CheckLogOptions {
  /** The log's verifier key; without it, the one pinned in the state file, or else the one /log/key serves. */
  vkey?: string;
  state_file: string;
  check_chain: boolean;
  fetcher?: typeof fetch;
  on_progress?: (entries_checked: number, tree_size: number) => void;
  /** Told, loudly, when a key is pinned on first use. */
  notice: (message: string) => void;
}

/**
 * `tessera-agent verify`: the log checked against what this reader saw before. The
 * key is trusted on first use and pinned in the state file, so a log that later signs
 * with another key is refused, not silently re-trusted; the checkpoint is remembered
 * only when every check passed, so a failed run leaves the last good one in place.
 */
export async function checkLog(base_url: string, options: CheckLogOptions): Promise<LogVerifyReport> {
  const fetcher = options.fetcher ?? fetch;
  const memory = recallLog(options.state_file, base_url);
  const refuse = (reason: string): LogVerifyReport => ({
    ok: false,
    entries_checked: 0,
    chain_checked: false,
    failed: { check: 'key', reason },
  });

  let vkey = options.vkey?.trim();
  const from_log = vkey === undefined;
  if (vkey === undefined) {
    const response = await fetcher(`${base_url.replace(/\/+$/, '')}/log/key`);
    if (!response.ok) throw new Error(`GET /log/key: HTTP ${response.status}`);
    vkey = (await response.text()).trim();
  }
  if (memory && memory.vkey !== vkey)
    return refuse(
      from_log
        ? `THE LOG'S KEY CHANGED: ${base_url} now serves ${vkey}, but ${memory.vkey} is pinned in ${options.state_file}. ` +
            'A log keeps its key; remove the entry from the state file only if its operator announced a new key where you can check it.'
        : `the --vkey given is not the key pinned for ${base_url} in ${options.state_file} (${memory.vkey})`,
    );

  const report = await verifyLog(base_url, {
    vkey,
    check_chain: options.check_chain,
    fetcher,
    ...(memory?.checkpoint ? { remembered: memory.checkpoint } : {}),
    ...(options.on_progress ? { on_progress: options.on_progress } : {}),
  });
  if (!report.ok || !report.checkpoint) return report;
  if (!memory)
    options.notice(
      `PINNED the log key ${vkey} for ${base_url} in ${options.state_file}` +
        (from_log
          ? ' on first use, as /log/key serves it: compare it with a copy you trust (another reader, a witness, the README of the society).'
          : '.') +
        ' Later runs refuse any other key and check that the log extends this checkpoint.',
    );
  rememberLog(options.state_file, base_url, { vkey, checkpoint: report.checkpoint });
  return report;
}
