import type { CharterVersion } from '../engine/governance/governance_state.js';
import type { Prohibition } from '../engine/governance/law.js';
import { escapeMarkdownInline, escapeMarkdownLines } from './markdown_escape.js';

/** Markdown of a charter version: Bedrock axioms first, then the Domain articles. */
export function charterMarkdown(charter: CharterVersion, adopted_at: string): string {
  const section = (namespace: 'bedrock' | 'domain') =>
    charter.articles
      .filter((article) => article.namespace === namespace)
      .map((article) => `### ${escapeMarkdownInline(`${article.article_id}. ${article.title}`)}\n\n${escapeMarkdownLines(article.text).join('\n')}\n`)
      .join('\n');
  return [
    `# Charter, version ${charter.version}`,
    '',
    `Adopted ${adopted_at}${charter.by_motion ? ` by motion ${charter.by_motion}` : ' at the founding'}. Every earlier version stays readable at /charter/v{version}.json.`,
    '',
    '## Bedrock: the axioms (no motion can change these)',
    '',
    section('bedrock'),
    '## Domain (members change these by motion)',
    '',
    section('domain'),
  ].join('\n');
}

export function prohibitionsMarkdown(prohibitions: Prohibition[]): string {
  return ['# Prohibitions', '', ...prohibitions.map((p) => `- **${escapeMarkdownInline(p.prohibition_id)}** (${p.namespace}): ${escapeMarkdownInline(p.text)}`), ''].join('\n');
}
