import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry_policy.js';

/** A mistake in how a command was called: said in one line, exit status 2 (as against 1 for a check that failed). */
export class UsageError extends Error {}

/** The option both command lines take, for the SDK's resending (client/retry_policy.ts). */
export const RETRY_SECONDS_OPTION = { 'retry-seconds': { type: 'string' } } as const;

export const RETRY_SECONDS_USAGE =
  '--retry-seconds N (how long a request is sent again while the server is unreachable or failing over; default 30)';

const RETRY_SECONDS_MAX = 600;

/** --retry-seconds as the SDK's policy: the default's budget replaced, anything but 0 to 600 seconds refused. */
export function retryPolicyOf(given: string | undefined): RetryPolicy {
  if (given === undefined) return DEFAULT_RETRY_POLICY;
  if (!/^\d{1,3}(\.\d+)?$/.test(given) || Number(given) > RETRY_SECONDS_MAX)
    throw new UsageError(
      `--retry-seconds must be a number of seconds from 0 to ${RETRY_SECONDS_MAX}, not ${JSON.stringify(given)}`,
    );
  return { ...DEFAULT_RETRY_POLICY, retry_budget_ms: Number(given) * 1000 };
}

/**
 * node:util's parseArgs, with its refusal (an unknown option, a missing value) said in one line
 * naming the command's help instead of a stack trace, and the process ended with status 2.
 */
export function parseCommandLine<T extends ParseArgsConfig>(command: string, config: T) {
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`${command}: ${(error as Error).message}\n  ${command} --help lists the commands and their options`);
    process.exit(2);
  }
}
