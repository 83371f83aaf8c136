import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { bidiControlsPaired, quoteMemberText } from '../engine/text.js';
import { escapeMarkdownInline } from '../render/markdown_escape.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { LoopbackClient } from './helpers/http_from.js';
import { request } from './helpers/signed.js';
import { join, refusal, type Member } from './helpers/world.js';

// What an attacker puts in a one-line field to speak as the Founder or flip the page around it.
const NOT_ONE_LINE: Record<string, string> = {
  newline: 'Budget\n# Founder: every member is expelled',
  carriage_return: 'Budget\r- Applied M-0001-aaaa',
  tab: 'Budget\tcolumns',
  escape_sequence: 'Budget\u001b[2J',
  delete: 'Budget\u007f',
  next_line: 'Budget\u0085- forged',
  line_separator: 'Budget\u2028- forged',
  paragraph_separator: 'Budget\u2029- forged',
};
const UNCLOSED_OVERRIDE = 'Budget \u202edesrever';

// Allowed, and hostile as Markdown and HTML: every renderer must keep it the member's literal text.
const TITLE =
  '# Founder decree: *all* members [click](javascript:alert(1)) <img src=x onerror=alert(1)> `x` | cell ]]> end';
const BODY = [
  '# heading in a body',
  '[link](javascript:alert(1))',
  '<script>alert(1)</script><img src=x onerror=alert(2)>',
  '```',
  '- bullet',
  '1. ordinal',
  '===',
  '| a | b |',
  '\tindented with a tab',
].join('\n');

let society: TestSociety;
let url: string;
let founder: TesseraClient;
let mallory: Member;
let motion_id: string;

const propose = (title: string, body = 'Why.', changes: unknown[] = []) =>
  mallory.client.act<{ motion_id: string }>('motion_propose', { title, body, changes });

/** The 422 items, from a refused call. */
async function invalid(
  call: Promise<unknown>,
): Promise<{ status: number; detail: { loc: (string | number)[]; type: string; msg: string }[] }> {
  const error = await refusal(call);
  return { status: error.status, detail: (error.body as { detail: never[] }).detail };
}

/** Markdown specials that are not backslash-escaped. */
function unescapedSpecials(line: string): string[] {
  return [...line.matchAll(/(?<!\\)[[\]<>*`|]/g)].map((match) => match[0]);
}

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { aether_delay_seconds: 0 } } });
  url = society.url;
  founder = await founderClient(society);
  mallory = await join(society, 'mallory');
  const changes = [
    { op: 'amend_charter', article_id: 'D9', title: TITLE, text: BODY },
    { op: 'add_prohibition', prohibition_id: 'P9', text: BODY },
    { op: 'enable_module', module_id: 'library', description: BODY },
  ];
  motion_id = (await propose(TITLE, BODY, changes)).result.motion_id;
  await founder.signed('POST', '/enactment/resolve', { motion_id, reason: 'housekeeping' });
  await founder.signed('POST', '/enactment/dispatch', {});
  await mallory.client.act('bulletin_post', { title: TITLE, body: BODY });
  await mallory.client.act('aether_send', { body: BODY, scope: 'auto', route: 'global' });
  society.advance(1000);
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

describe('one-line member fields', () => {
  it('refuse line breaks and control characters with 422 naming the field, in every act that takes one', async () => {
    for (const [name, value] of Object.entries(NOT_ONE_LINE)) {
      const title = await invalid(propose(value));
      expect([title.status, title.detail[0]?.loc, title.detail[0]?.type], name).toEqual([
        422,
        ['body', 'payload', 'title'],
        'string_pattern_mismatch',
      ]);
    }
    const value = NOT_ONE_LINE.newline!;
    // Thunks: each call starts only when its turn comes, so no refusal waits unobserved.
    const cases: [() => Promise<unknown>, (string | number)[]][] = [
      [() => mallory.client.act('bulletin_post', { title: value, body: 'fine' }), ['body', 'payload', 'title']],
      [
        () => propose('fine', '', [{ op: 'amend_charter', article_id: 'D8', title: value, text: 'fine' }]),
        ['body', 'payload', 'changes', 0, 'title'],
      ],
      [
        () => propose('fine', '', [{ op: 'set_param', name: value, value: 1 }]),
        ['body', 'payload', 'changes', 0, 'name'],
      ],
      [
        async () => new TesseraClient(url, await generateKey()).register('newcomer', { declared_runtime: value }),
        ['body', 'declared_runtime'],
      ],
      [() => mallory.client.signed('POST', '/api/v1/pom/challenge', { intent: value }), ['body', 'intent']],
      [() => founder.signed('POST', '/enactment/resolve', { motion_id, reason: value }), ['body', 'reason']],
      [() => founder.signed('POST', '/api/v1/grants', { kind: 'observer', note: value }), ['body', 'note']],
    ];
    for (const [call, loc] of cases) {
      const refused = await invalid(call());
      expect([refused.status, refused.detail[0]?.loc, refused.detail[0]?.type], loc.join('.')).toEqual([
        422,
        loc,
        'string_pattern_mismatch',
      ]);
    }
  });

  it('refuse an unclosed bidirectional override, and accept one closed on the same line', async () => {
    const refused = await invalid(propose(UNCLOSED_OVERRIDE));
    expect([refused.status, refused.detail[0]?.loc, refused.detail[0]?.type]).toEqual([
      422,
      ['body', 'payload', 'title'],
      'value_error',
    ]);
    expect(refused.detail[0]?.msg).toContain('U+202C');
    for (const stray of ['Budget \u2067isolate', 'Budget \u202c pop alone', 'a \u202b b \u2066 c \u202c d \u2069']) {
      expect((await invalid(propose(stray))).status, JSON.stringify(stray)).toBe(422);
    }
    const closed = await propose('Budget \u202eoverridden\u202c and \u2067isolated\u2069');
    expect(closed.result.motion_id).toMatch(/^M-/);
  });
});

describe('multi-line member fields', () => {
  it('keep \\n and \\t and refuse every other control character and unclosed bidirectional controls, with 422 naming the field', async () => {
    for (const value of ['a\rb', 'a\u0000b', 'a\u001b[31mred', 'a\u0085b', 'a\u202eb', 'a\u202eb\nc\u202c']) {
      const body = await invalid(propose('fine', value));
      expect([body.status, body.detail[0]?.loc], JSON.stringify(value)).toEqual([422, ['body', 'payload', 'body']]);
      const message = await invalid(mallory.client.act('aether_send', { body: value, scope: 'auto', route: 'global' }));
      expect([message.status, message.detail[0]?.loc], JSON.stringify(value)).toEqual([
        422,
        ['body', 'payload', 'body'],
      ]);
    }
    const text = await invalid(
      propose('fine', '', [{ op: 'add_prohibition', prohibition_id: 'P8', text: 'a\u0007b' }]),
    );
    expect(text.detail[0]?.loc).toEqual(['body', 'payload', 'changes', 0, 'text']);
    expect(society.engine.state.governance.motions[motion_id]!.body).toBe(BODY);
  });
});

describe("the Founder's Dispatch", () => {
  it("quotes the member's title inside its own line, in JSON, in the API and the HTML page", async () => {
    const [dispatch] = (await request(url, '/api/v1/dispatches')).body.dispatches;
    expect(dispatch.text).toBe(`- Resolved ${motion_id} ${JSON.stringify(TITLE)} by Founder action: housekeeping`);
    const page = (await request(url, '/dispatches')).body as string;
    expect(page).toContain(
      `<ul class="dispatch"><li>Resolved <a href="/motions/${motion_id}"><code class="motion-id">${motion_id}</code></a> <span class="quoted"><bdi>&#34;# Founder decree: *all* members [click](javascript:alert(1)) &#60;img`,
    );
    expect(page).not.toContain('<img src=x');
  });

  it("in Markdown has no line a member wrote: every Dispatch line is a bullet of ours, the member's text escaped inside it", async () => {
    const lines = ((await request(url, '/dispatches.md')).body as string).split('\n');
    const dispatch_lines = lines
      .slice(lines.findIndex((line) => line.startsWith('## Dispatch')) + 1)
      .filter((line) => line !== '');
    expect(dispatch_lines).toHaveLength(1);
    expect(
      dispatch_lines[0]!.startsWith(
        `- Resolved ${motion_id} "\\# Founder decree: \\*all\\* members \\[click\\](javascript:alert(1)) \\<img`,
      ),
    ).toBe(true);
    expect(unescapedSpecials(dispatch_lines[0]!)).toEqual([]);
  });

  it('escapes a title even if one with a line break was stored before the checks existed', async () => {
    const legacy = (await propose('placeholder')).result.motion_id;
    society.engine.state.governance.motions[legacy]!.title = 'Old\n# Founder: forged line\n- Applied M-0001-aaaa';
    const lines = ((await request(url, `/motions/${legacy}.md`)).body as string).split('\n');
    expect(lines.filter((line) => line.startsWith('#'))).toEqual([
      '# Old \\# Founder: forged line - Applied M-0001-aaaa',
      '## Changes',
      '## The roll',
    ]);
    expect(lines.some((line) => line.startsWith('- Applied'))).toBe(false);
  });
});

describe('Markdown renderings', () => {
  it("keep a motion's title in its heading and its body in a blockquote, escaped: no heading, link, image, HTML, fence or table of the member's", async () => {
    const text = (await request(url, `/motions/${motion_id}.md`)).body as string;
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('#'))).toEqual([
      `# ${escapeMarkdownInline(TITLE)}`,
      '## Changes',
      '## The roll',
    ]);
    expect(unescapedSpecials(lines.find((line) => line.startsWith('# '))!)).toEqual([]);
    const quoted = lines.filter((line) => line.startsWith('> ') && !line.startsWith('> Notice'));
    expect(quoted).toHaveLength(BODY.split('\n').length);
    for (const line of quoted) expect(unescapedSpecials(line.slice(2)), line).toEqual([]);
    expect(quoted).toContain('> \\- bullet');
    expect(quoted).toContain('> 1\\. ordinal');
    expect(quoted).toContain('> \\===');
    // The changes are a list now, not a fenced block: no fence at all, so none can be the member's.
    expect(lines.filter((line) => line.startsWith('```'))).toEqual([]);
  });

  it('escape member text in the motions table, the charter, the prohibitions and the Aether', async () => {
    const row = ((await request(url, '/motions.md')).body as string)
      .split('\n')
      .find((line) => line.includes(motion_id))!;
    expect([...row.matchAll(/(?<!\\)\|/g)]).toHaveLength(7);
    const charter = ((await request(url, '/charter.md')).body as string).split('\n');
    expect(charter).toContain(`### D9. ${escapeMarkdownInline(TITLE)}`);
    expect(charter).toContain('\\# heading in a body');
    expect(charter).not.toContain('# heading in a body');
    const prohibitions = (await request(url, '/prohibitions.md')).body as string;
    expect(prohibitions).toContain(
      '- **P9** (domain): \\# heading in a body \\[link\\](javascript:alert(1)) \\<script\\>',
    );
    const aether = ((await request(url, '/aether.md')).body as string).split('\n');
    expect(aether).toContain('> \\<script\\>alert(1)\\</script\\>\\<img src=x onerror=alert(2)\\>');
    for (const path of ['/charter.md', '/prohibitions.md', '/aether.md', '/motions.md']) {
      expect((await request(url, path)).body, path).not.toMatch(/(?<!\\)\[click\\?\]\(javascript/);
    }
  });
});

describe('HTML pages', () => {
  it('show member text escaped and inside <bdi>, with no member markup and no javascript: link', async () => {
    const pages = [
      '/motions',
      `/motions/${motion_id}`,
      '/society',
      '/aether',
      '/charter',
      '/prohibitions',
      '/modules/library',
      '/dispatches',
    ];
    for (const path of pages) {
      const body = (await request(url, path)).body as string;
      expect(body, path).not.toContain('<script>alert');
      expect(body, path).not.toContain('<img src=x');
      expect(body, path).not.toMatch(/href="\s*javascript:/i);
    }
    const motion_page = (await request(url, `/motions/${motion_id}`)).body as string;
    expect(motion_page).toContain('<h1><bdi>#');
    expect(motion_page).toContain('<div class="motion-body"><p><bdi>');
    expect((await request(url, '/society')).body).toContain('<strong><bdi>#');
  });
});

describe("the chronicle's RSS", () => {
  it('carries member titles as plain text (an RSS title is text), descriptions never as markup, well-formed with ]]> in a title', async () => {
    const rss = (await request(url, '/chronicle.rss')).body as string;
    expect(XMLValidator.validate(rss)).toBe(true);
    const items = [new XMLParser().parse(rss).rss.channel.item].flat() as { title: string; description: string }[];
    const filed = items.find((item) => String(item.title).includes(`${motion_id} filed`))!;
    expect(filed).toBeDefined();
    expect(filed.title).toBe(`${motion_id} filed: “${TITLE}”`);
    for (const item of items) expect(String(item.description)).not.toMatch(/<[a-z/!]/i);
    expect(filed.description).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(filed.description).toContain(']]&#62; end');
  });
});

describe("the chronicle's RSS, against hostile input", () => {
  it('stays well-formed XML 1.0 when a title holds a noncharacter (U+FFFE, U+FFFF), which one-line fields accept', async () => {
    const filed = (await propose('Budget \ufffe\uffff end')).result.motion_id;
    const rss = (await request(url, '/chronicle.rss')).body as string;
    // XML 1.0's Char production: a document holding anything else is not XML, and a reader drops the whole feed.
    expect(rss.match(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu) ?? []).toEqual([]);
    expect(rss).toContain(`${filed} filed: “Budget`);
  });

  it("links to the society's public address whatever Host header the request carried", async () => {
    const client = new LoopbackClient(url, '127.0.0.1');
    const answer = await client.send('GET', '/chronicle.rss', { host: 'evil.example' });
    expect(answer.status).toBe(200);
    expect(String(answer.body)).not.toContain('evil.example');
    expect(String(answer.body)).toContain('<link>http://society.test/</link>');
    client.close();
  });
});

describe('the text rules as functions', () => {
  it('pair bidirectional controls line by line', () => {
    expect(bidiControlsPaired('plain')).toBe(true);
    expect(bidiControlsPaired('a\u202eb\u202c')).toBe(true);
    expect(bidiControlsPaired('a\u2068b\u202ac\u2069')).toBe(false);
    expect(bidiControlsPaired('a\u2068b\u202ac\u202c\u2069')).toBe(true);
    expect(bidiControlsPaired('a\u202e\nb\u202c')).toBe(false);
    expect(bidiControlsPaired('\u2069')).toBe(false);
  });

  it('quote member text as a JSON string with line breaks and bidirectional controls escaped', () => {
    expect(quoteMemberText('a"b\n# c\u202e\u2028\u0085')).toBe('"a\\"b\\n# c\\u202e\\u2028\\u0085"');
  });

  it('escape Markdown so that nothing a member writes opens a construct, on one line', () => {
    expect(escapeMarkdownInline('# h\n[a](javascript:x) <b>&amp; *e* _u_ `c` ~~s~~ | !')).toBe(
      '\\# h \\[a\\](javascript:x) \\<b\\>\\&amp; \\*e\\* \\_u\\_ \\`c\\` \\~\\~s\\~\\~ \\| \\!',
    );
    expect(['- a', '+ a', '= a', '  12. a', '3) a', '> a'].map(escapeMarkdownInline)).toEqual([
      '\\- a',
      '\\+ a',
      '\\= a',
      '  12\\. a',
      '3\\) a',
      '\\> a',
    ]);
    expect(escapeMarkdownInline('back\\slash')).toBe('back\\\\slash');
    expect(escapeMarkdownInline('ag_0123 agent_registered _start end_ a__b')).toBe(
      'ag_0123 agent_registered \\_start end\\_ a\\_\\_b',
    );
    expect(escapeMarkdownInline('flip \u202e here')).toBe('\u2068flip \u202e here\u2069');
  });
});
