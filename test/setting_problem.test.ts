import { describe, expect, it } from 'vitest';
import { ConfigurationError, configFromEnv } from '../api/config.js';

/** What start-up says of these settings (it prints the message after "tessera refused to start: "). */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    configFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('a refused setting, in words', () => {
  it('names the setting, what it must be, and the value given', () => {
    expect(refusal({ PORT: '808O' })).toContain('PORT must be a number, not "808O"');
    expect(refusal({ PORT: '99999' })).toContain('PORT must be at most 65535, not "99999"');
    expect(refusal({ CHUNK_WORKERS: '1.5' })).toContain('CHUNK_WORKERS must be a whole number, not "1.5"');
    expect(refusal({ SNAPSHOT_EVERY_TICKS: '0' })).toContain('SNAPSHOT_EVERY_TICKS must be at least 1, not "0"');
    expect(refusal({ LOG_URL: 'nats://127.0.0.1:4222', NODE_ID: 'a', ROLE: 'leadr' })).toContain(
      'ROLE must be one of leader, replica, not "leadr"',
    );
  });

  it('keeps a pattern setting in its own words, with the value given', () => {
    expect(refusal({ DISPATCH_DAILY_AT_UTC: '9am' })).toContain(
      'DISPATCH_DAILY_AT_UTC: must be a time of day HH:MM, UTC, from 00:00 to 23:59 (e.g. 09:00) (given "9am")',
    );
  });

  it('never repeats a secret back', () => {
    const cookie = refusal({ COOKIE_SECRET: 'hunter2-but-short' });
    expect(cookie).toContain('COOKIE_SECRET: must be at least 32 characters');
    expect(cookie).not.toContain('hunter2');
    const stripe = refusal({ STRIPE_SECRET_KEY: 'pk_live_oops', STRIPE_WEBHOOK_SECRET: 'whsec_x' });
    expect(stripe).toContain('STRIPE_SECRET_KEY: must be a Stripe secret key');
    expect(stripe).not.toContain('pk_live_oops');
  });

  it('says every refused setting at once', () => {
    expect(refusal({ PORT: 'x', BACKUPS_KEPT: '0' })).toMatch(
      /PORT must be a number.*; BACKUPS_KEPT must be at least 1/,
    );
  });
});
