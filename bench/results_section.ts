import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Writes one section of bench/RESULTS.md (from its `## ` heading to the next), or adds it
 * at the end: each benchmark replaces only its own figures. Prints the section too.
 */
export function replaceResultsSection(heading: string, lines: string[]): void {
  // Run from dist/bench/: the file is the source tree's.
  const file = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
  const current = readFileSync(file, 'utf8');
  const section = lines.join('\n');
  const start = current.indexOf(heading);
  const after = start < 0 ? -1 : current.indexOf('\n## ', start + heading.length);
  const updated =
    start < 0
      ? `${current.trimEnd()}\n\n${section}`
      : current.slice(0, start) + section + (after < 0 ? '' : `\n${current.slice(after + 1)}`);
  writeFileSync(file, updated);
  console.log(section);
}
