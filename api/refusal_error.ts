import { REFUSALS, type Refusal, type RefusalCode } from '../engine/refusals.js';
import type { ValidationItem } from './validation.js';

/** Thrown by route code to answer with a refusal; the error middleware renders it. */
export class RefusalError extends Error {
  constructor(readonly refusal: Refusal, readonly headers: Record<string, string> = {}) {
    super(refusal.message);
  }

  static of(code: RefusalCode, message?: string, details?: Record<string, unknown>): RefusalError {
    return new RefusalError({ ok: false, code, message: message ?? REFUSALS[code].message, ...(details ? { details } : {}) });
  }
}

/** Thrown to answer 422 with the specification's {detail: [...]} body. */
export class ValidationError extends Error {
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
