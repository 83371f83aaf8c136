import type { ChainedEntry } from './ledger.js';
import type { Refusal } from './refusals.js';
import type { KeptAnswer, KeptOutcome } from './store/types.js';

/**
 * What the host asks the engine to keep of a submission's answer, for a retry of the same
 * signed request: the key to keep it under (see KeptAnswer) and what identifies the request.
 * The engine keeps it in the very commit that spends the nonce, so an answer the client
 * may have lost is durable exactly when the act is.
 */
export type AnswerToKeep = Omit<KeptAnswer['record'], 'outcome'> & { key: string };

type Answer = { ok: true; result: Record<string, unknown>; entries: ChainedEntry[] } | Refusal;

/** The answer as kept: the result and the seqs it landed on (the entries themselves are on the ledger), or the refusal. */
export function keptOutcome(answer: Answer): KeptOutcome {
  if (!answer.ok)
    return {
      ok: false,
      code: answer.code,
      message: answer.message,
      ...(answer.details ? { details: answer.details } : {}),
    };
  const first = answer.entries[0];
  const last = answer.entries.at(-1);
  return {
    ok: true,
    result: answer.result,
    ledger: first && last ? { first_seq: first.seq, last_seq: last.seq } : null,
  };
}

/** The kept answers of a tick's batch, in order, for the submissions that asked. */
export function keptAnswers(asked: readonly (AnswerToKeep | undefined)[], answers: readonly Answer[]): KeptAnswer[] {
  const kept: KeptAnswer[] = [];
  asked.forEach((ask, index) => {
    if (!ask) return;
    const { key, ...identity } = ask;
    kept.push({ key, record: { ...identity, outcome: keptOutcome(answers[index]!) } });
  });
  return kept;
}
