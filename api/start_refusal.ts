import { DivergedLogError, StoreIntegrityError } from '../engine/index.js';
import { ConfigurationError } from './config.js';
import { StartRefusedError } from './data_folder.js';

export interface StartRefusal {
  /** The process's exit status: 78 (EX_CONFIG) for a setting, 1 for the data folder or anything else. */
  exit_code: number;
  /** What is written to stderr, a line each. */
  lines: string[];
}

/**
 * What `npm start` says and how it exits when start-up fails. `data_dir_named` is the data
 * folder as the operator named it (the settings may not have parsed).
 */
export function startRefusal(error: unknown, data_dir_named: string): StartRefusal {
  if (error instanceof ConfigurationError)
    return {
      exit_code: 78,
      lines: [
        `tessera refused to start: ${error.message}`,
        `  Nothing was written to ${data_dir_named}. Fix the setting and start again.`,
      ],
    };
  if (error instanceof StartRefusedError || error instanceof StoreIntegrityError || error instanceof DivergedLogError)
    // Nothing was served and the data folder was left as it was; the operator decides what to restore.
    return {
      exit_code: 1,
      lines: [
        `tessera refused to start: ${error.message}`,
        '  Nothing was served or changed. See "When start-up refuses" in the README: check with tessera-operator replay, restore from a backup.',
      ],
    };
  return {
    exit_code: 1,
    lines: [`tessera failed to start: ${error instanceof Error ? error.message : String(error)}`],
  };
}
