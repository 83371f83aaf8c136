import { readdirSync, readFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proofStatus } from '../api/pages/views/ledger.js';
import { inclusionPathOf } from '../api/pages/views/inclusion_path.js';
import type { Receipt } from '../client/tlog/receipt.js';
import { toBase64 } from '../client/tlog/base64.js';
import { nobleHasher } from '../client/tlog/hasher.js';
import type { WireEntry } from '../client/ledger_check.js';
import {
  BOOKKEEPING_EVENTS,
  eventTypesWithSentences,
  KNOWN_EVENT_TYPES,
  sentenceOf,
} from '../render/ledger_sentences.js';
import { sentenceMarkdown } from '../render/sentence_text.js';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, pacing, type Member } from './helpers/world.js';

/** Every event type the engine's sources emit, read from their `event_type: '...'` literals. */
function emittedEventTypes(): string[] {
  const files = readdirSync('engine', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const types = new Set<string>();
  for (const file of files)
    for (const match of readFileSync(joinPath('engine', file), 'utf8').matchAll(/event_type: '([a-z0-9_]+)'/g))
      types.add(match[1]!);
  return [...types].sort();
}

describe('a ledger sentence', () => {
  it('exists for every event type the engine emits, and for no type the recipe does not know', () => {
    expect(emittedEventTypes().filter((type) => !KNOWN_EVENT_TYPES.includes(type))).toEqual([]);
    expect(eventTypesWithSentences()).toEqual([...KNOWN_EVENT_TYPES].sort());
  });

  it('reads a move as a person would say it, and falls back plainly for a type it does not know', () => {
    const moved = sentenceOf({
      seq: 9,
      event_type: 'agent_moved',
      actor: 'ag_0000000000000001',
      data: { from: { x: 10, y: 10 }, to: { x: 13, y: 7 }, path: ['ne', 'ne', 'ne'], ap_spent: 4 },
    });
    const names = (agent_id: string) => ({ agent_id, handle: 'ada' });
    expect(sentenceMarkdown(moved, names)).toBe('ada (ag_0000000000000001) moved 3 tiles north-east to (13, 7), 4 AP');
    const unknown = sentenceOf({ seq: 10, event_type: 'comet_sighted', actor: 'system', data: {} });
    expect(sentenceMarkdown(unknown, names)).toBe('The system: comet sighted');
  });
});

describe('the ledger explorer', () => {
  let society: TestSociety;
  let ada: Member;
  let bob: Member;

  beforeAll(async () => {
    society = await startTestSociety({
      genesis: { world_seed: 'world-tests', params: { aether_delay_seconds: 0, ap_at_registration: 400 } },
    });
    ada = await join(society, 'ada');
    bob = await join(society, 'bob');
    const step = pacing(society, ada);
    // Enough entries for more than one page of moves, with an act that needs Proof of Machine among them.
    for (let i = 0; i < 30; i++) await ada.client.act('world_move', { path: [step()] });
    await bob.client.act('bulletin_post', { title: 'Lanterns <b>tonight</b>', body: 'By the mill.' });
  }, 60_000);
  afterAll(() => society.destroy());

  const page = async (query = '') => (await request(society.url, `/ledger${query}`)).body as string;

  it('tells each entry as a sentence with handles beside ids, and leaves bookkeeping out unless asked, saying so', async () => {
    const html = await page();
    expect(html).toContain('<a class="agent" href="/agents/' + ada.id + '"><bdi>ada</bdi></a>');
    expect(html).toMatch(/moved 1 tile (east|west) to <a href="\/world\?x=\d+&#38;y=\d+&#38;z=4">/);
    expect(html).toContain(
      'pinned a bulletin post, <q class="member"><bdi>Lanterns &#60;b&#62;tonight&#60;/b&#62;</bdi></q>',
    );
    expect(html).not.toContain('Proof of Machine challenge (');
    const hidden = Number(/(\d+) bookkeeping entr/.exec(html)![1]);
    expect(hidden).toBeGreaterThan(0);
    const shown = await page('?bookkeeping=shown');
    expect(shown).toContain('was handed a Proof of Machine challenge');
    expect(shown).toContain('AP on world_move');
  });

  it('filters by event type and by actor, and the two together', async () => {
    const votes = await page('?type=bulletin_posted');
    expect((votes.match(/<li>/g) ?? []).length).toBe(1);
    const by_bob = await page(`?actor=${bob.id}`);
    const rows = by_bob.match(/<li>.*<\/li>/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toContain(`href="/agents/${bob.id}"`);
    const both = await page(`?actor=${ada.id}&type=bulletin_posted`);
    expect(both).toContain('No entry here matches.');
    const shown_type = await page('?type=pom_challenge_issued');
    expect(shown_type).toContain('was handed a Proof of Machine challenge');
  });

  it('pages older and newer, each page newest first, the filters kept', async () => {
    const first = await page('?bookkeeping=shown');
    const seqs = (html: string) =>
      [...html.matchAll(/<a class="seq" href="\/ledger\/(\d+)">/g)].map((m) => Number(m[1]));
    const top = seqs(first);
    expect(top).toHaveLength(50);
    expect(top).toEqual([...top].sort((a, b) => b - a));
    const older_href = /<a href="(\/ledger\?bookkeeping=shown&#38;before=\d+)">Older<\/a>/
      .exec(first)![1]!
      .replaceAll('&#38;', '&');
    const older = await page(older_href.slice('/ledger'.length));
    expect(seqs(older)[0]).toBe(top.at(-1)! - 1);
    const newer_href = /<a href="(\/ledger\?bookkeeping=shown&#38;after=\d+)">Newer<\/a>/
      .exec(older)![1]!
      .replaceAll('&#38;', '&');
    expect(seqs(await page(newer_href.slice('/ledger'.length)))).toEqual(top);
  });

  it('answers a bad filter with the 422 page naming it', async () => {
    const bad = await request(society.url, '/ledger?type=Not%20a%20type');
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('The query value type (Not a type) must be an event type.');
  });

  it('shows an entry with its sentence, its fields and whether its signature verifies, checked as the page is made', async () => {
    const entries = [...society.store.ledgerEntries(1)].map((stored) => JSON.parse(stored.json) as WireEntry);
    const post = entries.find((entry) => entry.event_type === 'bulletin_posted')!;
    const html = (await request(society.url, `/ledger/${post.seq}`)).body as string;
    expect(html).toContain('pinned a bulletin post');
    expect(html).toContain('The signature verifies');
    expect(html).toContain(`href="/log/receipt/${post.seq}"`);
    expect(html).toContain(`href="/ledger/${post.seq - 1}"`);
    const context = { state: society.engine.state } as Parameters<typeof proofStatus>[0];
    const forged = {
      ...post,
      proof: { ...post.proof!, signature: post.proof!.signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) },
    };
    expect(proofStatus(context, forged)).toBe('invalid');
    const changed_body = { ...post, proof: { ...post.proof!, body: post.proof!.body!.replace('Lanterns', 'Torches') } };
    expect(proofStatus(context, changed_body)).toBe('invalid');
    const founded = (await request(society.url, '/ledger/1')).body as string;
    expect(founded).toContain("the system's own entry");
    const follow_up = entries.find((entry) => entry.event_type === 'ap_spent')!;
    expect((await request(society.url, `/ledger/${follow_up.seq}`)).body).toContain('no proof of its own');
    const twin = (await request(society.url, `/ledger/${post.seq}.md`)).body as string;
    expect(twin).toContain('proof: valid');
  });

  it("draws the entry's receipt from its leaf to the signed root, each step recomputed, and says so when a proof is wrong", async () => {
    const seq = 5;
    const receipt = (await request(society.url, `/log/receipt/${seq}`)).body as Receipt;
    const root = receipt.checkpoint.split('\n')[2]!;
    const html = (await request(society.url, `/ledger/${seq}`)).body as string;
    const drawn = /<ol class="inclusion"[^>]*>([^]*?)<\/ol>/.exec(html)![1]!;
    const steps = drawn.match(/<li>Step \d+:[^]*?<\/li>/g) ?? [];
    expect(steps).toHaveLength(receipt.inclusion_proof.length);
    receipt.inclusion_proof.forEach((sibling, at) =>
      expect(steps[at], `step ${at + 1}`).toContain(`class="sibling" title="${sibling}"`),
    );
    const leaf = toBase64(nobleHasher.leaf(new TextEncoder().encode(receipt.entry)));
    expect(drawn).toContain(`The leaf: SHA-256 of a zero byte and the entry, <code>${leaf}</code>`);
    expect(drawn).toContain(`That is the checkpoint's root <code>${root}</code>: the entry is in the log.`);
    expect(html).toContain(`Leaf ${seq - 1} of the tree of`);

    const path = inclusionPathOf(receipt)!;
    expect(path.reaches_root).toBe(true);
    expect(path.steps.at(-1)?.parent ?? path.leaf_hash).toBe(root);
    // A proof hash changed: the path no longer reaches the root, and the page would say so.
    const tampered = {
      ...receipt,
      inclusion_proof: receipt.inclusion_proof.map((hash, at) => (at === 0 ? root : hash)),
    };
    expect(inclusionPathOf(tampered)!.reaches_root).toBe(false);
    expect(inclusionPathOf({ ...receipt, inclusion_proof: [...receipt.inclusion_proof, root] })).toBeNull();
    const twin = (await request(society.url, `/ledger/${seq}.md`)).body as string;
    expect(twin).toContain(`reaches the root \`${root}\` in ${receipt.inclusion_proof.length} step`);
  });

  describe.skipIf(!chromiumPath)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => browser?.close());

    it('fits a phone: the list and an entry page never scroll sideways', async () => {
      const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
      for (const path of ['/ledger?bookkeeping=shown', '/ledger/5']) {
        await phone.goto(`${society.url}${path}`);
        const { scroll, inner } = await phone.evaluate(() => ({
          scroll: (globalThis as any).document.documentElement.scrollWidth as number,
          inner: (globalThis as any).innerWidth as number,
        }));
        expect(scroll, path).toBeLessThanOrEqual(inner);
      }
      await phone.close();
    });
  });
});

describe('bookkeeping', () => {
  it('is the Proof of Machine issuance and the AP records, both known event types', () => {
    for (const type of BOOKKEEPING_EVENTS) expect(KNOWN_EVENT_TYPES).toContain(type);
  });
});
