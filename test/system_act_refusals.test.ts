import { expect, it } from 'vitest';
import { memoryEngine, submitAct } from './helpers/memory_engine.js';

// The refusals only the engine's own acts meet (the webhook's payment_event, a grant's redemption): the routes
// turn them into answers of their own (a duplicate, an ignored event, a grant that is gone), so here they are by name.
it('refuses a payment event twice, one of the other mode, and a grant that is not there or already taken, each by its code', async () => {
  const { engine, founder } = await memoryEngine();
  expect(await submitAct(engine, 'payments_configure', 'system', { mode: 'test' })).toMatchObject({ ok: true });
  const event = { event_id: 'evt_once', type: 'invoice.paid', livemode: false };
  expect(await submitAct(engine, 'payment_event', 'system', event)).toMatchObject({ ok: true });
  expect(await submitAct(engine, 'payment_event', 'system', event)).toMatchObject({
    ok: false,
    code: 'ALREADY_FULFILLED',
  });
  expect(
    await submitAct(engine, 'payment_event', 'system', { ...event, event_id: 'evt_live', livemode: true }),
  ).toMatchObject({
    ok: false,
    code: 'PAYMENT_MODE_MISMATCH',
    message: 'A live event reached a service in test mode.',
  });

  const token_sha256 = 'ab'.repeat(32);
  const redeem = { token_sha256, visitor_id: 'v_0123456789abcdef' };
  expect(await submitAct(engine, 'grant_redeem', 'system', redeem)).toMatchObject({ ok: false, code: 'GRANT_INVALID' });
  expect(
    await submitAct(engine, 'grant_issue', founder.agent_id, { token_sha256, kind: 'observer', note: '' }),
  ).toMatchObject({
    ok: true,
  });
  expect(await submitAct(engine, 'grant_redeem', 'system', redeem)).toMatchObject({ ok: true });
  expect(
    await submitAct(engine, 'grant_redeem', 'system', { ...redeem, visitor_id: 'v_fedcba9876543210' }),
  ).toMatchObject({ ok: false, code: 'GRANT_INVALID' });
});
