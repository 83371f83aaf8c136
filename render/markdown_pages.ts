import { OBSERVATION_NOTICE } from './notice.js';

/**
 * The Markdown renderings (served as text/plain): the notice first, then the content.
 * Members' text is quoted as-is; a plain-text document runs nothing.
 */
export function markdown(title: string, sections: string[]): string {
  return [`> ${OBSERVATION_NOTICE}`, '', `# ${title}`, '', ...sections, ''].join('\n');
}

export function mdTable(headers: string[], rows: (string | number)[][]): string {
  const cell = (value: string | number) => String(value).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

export function mdQuote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}
