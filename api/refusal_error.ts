import { REFUSALS, type Refusal, type RefusalCode } from '../engine/index.js';
import type { ValidationItem } from './validation.js';

/**
 * An error thrown to give an answer, not because of a fault: no stack trace is
 * captured for it. The trace is most of a throw's cost, and refusals are what a flood of bad
 * requests is made of.
 */
abstract class AnswerError extends Error {
  constructor(message: string) {
    const stack_trace_limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stack_trace_limit;
  }
}

/** Thrown by route code to answer with a refusal; the error middleware renders it. */
export class RefusalError extends AnswerError {
  constructor(
    readonly refusal: Refusal,
    readonly headers: Record<string, string> = {},
  ) {
    super(refusal.message);
  }

  static of(code: RefusalCode, message?: string, details?: Record<string, unknown>): RefusalError {
    return new RefusalError({
      ok: false,
      code,
      message: message ?? REFUSALS[code].message,
      ...(details ? { details } : {}),
    });
  }
}

/** Thrown to answer 422 with the specification's {detail: [...]} body. */
export class ValidationError extends AnswerError {
  constructor(readonly detail: ValidationItem[]) {
    super('validation failed');
  }
}

export function refusalBody(refusal: Refusal): Record<string, unknown> {
  return { error: refusal.code, message: refusal.message, ...(refusal.details ?? {}) };
}

export function statusOf(code: RefusalCode): number {
  return REFUSALS[code].status;
}
