import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TesseraClient } from '../client/sdk.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { refusal } from './helpers/world.js';

/** The dispatch_published entries on the ledger, oldest first. */
async function dispatchEntries(society: TestSociety): Promise<any[]> {
  return [...society.store.ledgerEntries(1)]
    .map(({ json }) => JSON.parse(json))
    .filter((entry) => entry.event_type === 'dispatch_published');
}

describe("the Founder's note in a Dispatch", () => {
  let society: TestSociety;
  let founder: TesseraClient;

  beforeAll(async () => {
    society = await startTestSociety();
    founder = await founderClient(society);
  });
  afterAll(() => society.destroy());
  afterEach(() => expect(society.bugs).toEqual([]));

  it('still takes an empty body, as every Founder client signed it before: no note anywhere', async () => {
    const published = await founder.signed<any>('POST', '/enactment/dispatch', {});
    expect(published).toMatchObject({ dispatch_id: 1, text: 'Nothing new.' });
    const [entry] = await dispatchEntries(society);
    expect(entry.data).not.toHaveProperty('note');
    expect(JSON.parse(entry.proof.body)).toEqual({});
    const { body } = await request(society.url, '/api/v1/dispatches');
    expect(body.dispatches[0]).not.toHaveProperty('note');
    expect((await request(society.url, '/dispatches')).body).not.toContain('The Founder writes');
  });

  it('keeps the note on the ledger entry, in the read answer and on both pages, escaped', async () => {
    const note = 'Quiet week.\n<script>alert(1)</script> & "more"';
    const published = await founder.signed<any>('POST', '/enactment/dispatch', { note });
    const entry = (await dispatchEntries(society)).at(-1);
    expect(entry.data).toMatchObject({ dispatch_id: published.dispatch_id, note });
    expect(JSON.parse(entry.proof.body)).toEqual({ note });

    const { body } = await request(society.url, '/api/v1/dispatches');
    expect(body.dispatches[0]).toMatchObject({ dispatch_id: published.dispatch_id, note });

    const html = (await request(society.url, '/dispatches')).body as string;
    expect(html).toContain('The Founder writes:');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;more&#34;');

    const markdown = (await request(society.url, '/dispatches.md')).body as string;
    expect(markdown).toContain('The Founder writes:');
    expect(markdown).toContain('> Quiet week.');
    expect(markdown).not.toContain('<script>');
  });

  it('refuses a note over 2000 code points with the 422 shape, and publishes nothing', async () => {
    const before = society.engine.state.governance.dispatches.length;
    const refused = await refusal(founder.signed('POST', '/enactment/dispatch', { note: '😀'.repeat(2001) }));
    expect([refused.status, refused.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect((refused.body as any).detail[0]).toMatchObject({ loc: ['body', 'note'] });
    const empty = await refusal(founder.signed('POST', '/enactment/dispatch', { note: '' }));
    expect(empty.status).toBe(422);
    const control = await refusal(founder.signed('POST', '/enactment/dispatch', { note: 'a\rb' }));
    expect(control.status).toBe(422);
    expect(society.engine.state.governance.dispatches.length).toBe(before);
    const longest = await founder.signed<any>('POST', '/enactment/dispatch', { note: '😀'.repeat(2000) });
    expect(longest.dispatch_id).toBe(before + 1);
  });
});
