import { describe, expect, it } from 'vitest';
import { RefusalError, ValidationError } from '../api/refusal_error.js';

describe('refusals thrown as answers', () => {
  it('carry no stack trace, and leave the stack trace limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const refusal = RefusalError.of('NONCE_INVALID');
    const invalid = new ValidationError([{ loc: ['body'], msg: 'bad', type: 'x' }]);
    expect(refusal.stack).not.toContain('    at ');
    expect(invalid.stack).not.toContain('    at ');
    expect([refusal instanceof Error, refusal.refusal.code, invalid.detail[0]!.msg]).toEqual([
      true,
      'NONCE_INVALID',
      'bad',
    ]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toContain('    at ');
  });
});
