import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The docs are true about where they point (issue 31 item 7): no file names a
 * specification the repository does not hold, and every relative link in the README and
 * docs/*.md reaches a file that exists and, with a #fragment into a markdown file, a
 * heading that exists there.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Spelled in two pieces so that this file does not name it. */
const MISSING_SPEC = ['PROTOCOL', 'md'].join('.');
/** Left to the engineer who owns them (issue 31); drop each once it no longer names it. */

function filesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(ROOT, folder))) {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) found.push(...filesUnder(path));
    else if (/\.(ts|md|js|mjs|json|html|css)$/.test(name)) found.push(path);
  }
  return found;
}

/** GitHub's anchor for a heading: lowercase, markup and punctuation but '-' and '_' dropped, spaces to '-'. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Every anchor a markdown file offers: its headings' slugs, a repeated one numbered as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = slugOf(match[1]!);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  for (const match of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** The targets of a markdown file's inline and reference links, code aside. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const reference = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1]!);
  return [...inline, ...reference];
}

const MARKDOWN = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the docs point only where something is', () => {
  it(`lets no file name ${MISSING_SPEC}, which the repository does not hold`, () => {
    const scanned = ['README.md', ...['docs', 'engine', 'client', 'api', 'bench', 'test'].flatMap(filesUnder)];
    expect(scanned.length).toBeGreaterThan(100);
    const naming = scanned.filter((path) => readFileSync(join(ROOT, path), 'utf8').includes(MISSING_SPEC));
    expect(naming).toEqual([]);
  });

  it('makes GitHub anchors as GitHub does', () => {
    expect(slugOf('Replicated societies: 307 and `NOT_LEADER`')).toBe('replicated-societies-307-and-not_leader');
    expect(slugOf('Compatibility of `/api/v1`')).toBe('compatibility-of-apiv1');
    expect(slugOf('Where an act landed: `ledger` and `receipt`')).toBe('where-an-act-landed-ledger-and-receipt');
    expect([...anchorsOf('# A\n## B\n```\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
    expect(linksOf('[a](x.md#y) `[b](not.md)` [c](https://e.org) [d]: ../z.md\n')).toEqual(['x.md#y', 'https://e.org']);
    expect(linksOf('[d]: ../z.md\n')).toEqual(['../z.md']);
  });

  it('has every relative link in the README and docs/*.md reach a file, and a heading where it names one', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of MARKDOWN) {
      const markdown = readFileSync(join(ROOT, file), 'utf8');
      for (const link of linksOf(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('/')) continue; // a URL, or a route of the service
        checked++;
        const [path, fragment] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURI(path));
        if (!existsSync(target)) {
          broken.push(`${file}: ${link} (no ${relative(ROOT, target)})`);
          continue;
        }
        if (fragment === undefined || !target.endsWith('.md')) continue;
        if (!anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(fragment)))
          broken.push(`${file}: ${link} (no heading #${fragment} in ${relative(ROOT, target)})`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});
