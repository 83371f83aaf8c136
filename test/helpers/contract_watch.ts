import { ContractError } from './contract_error.js';
import { contractFor, theContract, type Contract } from './contract_document.js';
import type { AnswerHeaders } from './contract_headers.js';
import { isJson } from './contract_media.js';

type Json = Record<string, any>;

// The registry lives on globalThis: with vitest's isolate: false the setup file runs
// again before each file, and this module may be loaded more than once.
interface Watched {
  /** Societies registered at this origin and not yet gone (a port is reused). */
  count: number;
  contract: Contract;
}
export interface Watch {
  origins: Map<string, Watched>;
  failures: string[];
  /** The fetch from before the check wrapped it (contract_fetch.ts). */
  original: typeof fetch;
}
const WATCH = Symbol.for('tessera.test.contract');

/** The servers whose answers are checked, the mismatches found, and the unwrapped fetch. */
export function watch(): Watch {
  const holder = globalThis as unknown as Record<symbol, Watch | undefined>;
  holder[WATCH] ??= { origins: new Map(), failures: [], original: globalThis.fetch };
  return holder[WATCH]!;
}

/**
 * Answers from this society (its origin) are checked from now until unwatchAnswers:
 * against `document` when given (what that server serves), the in-process one otherwise.
 */
export function watchAnswers(url: string, document?: Json): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  const contract = document ? contractFor(document) : theContract();
  origins.set(origin, { count: (origins.get(origin)?.count ?? 0) + 1, contract });
}

export function unwatchAnswers(url: string): void {
  const { origins } = watch();
  const origin = new URL(url).origin;
  const watched = origins.get(origin);
  if (watched && watched.count > 1) watched.count -= 1;
  else origins.delete(origin);
}

/** Mismatches found since the last call, emptied: the setup file fails the test that received them. */
export function takeContractFailures(): string[] {
  return watch().failures.splice(0);
}

/**
 * Checks an answer if it came from a watched society: its headers always, and its
 * text when its content type is JSON; a mismatch is remembered for the test's end and
 * thrown. For helpers that do not go through fetch (test/helpers/http_from.ts), which
 * pass the headers they got to have them checked too.
 */
export function checkWatchedAnswer(
  url: URL,
  method: string,
  status: number,
  content_type: string | null,
  text: string,
  headers?: AnswerHeaders,
): void {
  const state = watch();
  const watched = state.origins.get(url.origin);
  // A HEAD answer has no body to hold to the GET's, and the document declares no HEAD.
  if (!watched || method.toUpperCase() === 'HEAD') return;
  try {
    if (!isJson(content_type) || text === '') {
      if (headers) watched.contract.checkUnreadBody(method, url.pathname, status, content_type, headers);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ContractError(
        `${method} ${url.pathname} answering ${status}`,
        'a JSON content type on a body that is not JSON',
      );
    }
    watched.contract.check(method, url.pathname, status, content_type, body, headers);
  } catch (error) {
    state.failures.push(String(error instanceof Error ? error.message : error));
    throw error;
  }
}
