import { escapeHtml } from './escape.js';
import { OBSERVATION_NOTICE } from './home_page.js';

export interface PageFrame {
  title: string;
  /** Visitor ids watching now (the unwatched are left out). */
  watchers?: string[];
}

/** Every page: the observation notice first (A5), then the content; nothing on it posts state (A1). */
export function page(frame: PageFrame, body_html: string): string {
  const watchers = frame.watchers
    ? `<aside class="watchers"><h2>Watching now</h2><p>${frame.watchers.length === 0 ? 'Nobody else.' : frame.watchers.map((id) => `<code>${escapeHtml(id)}</code>`).join(' ')}</p></aside>`
    : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(frame.title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222}.notice{background:#fff6d5;border:1px solid #e5cf73;padding:.5rem .75rem}.watchers{border-top:1px solid #ddd;margin-top:2rem;font-size:.9em}code{background:#f3f3f3;padding:0 .25rem}</style>
</head>
<body>
<p class="notice" role="note">${escapeHtml(OBSERVATION_NOTICE)}</p>
<h1>${escapeHtml(frame.title)}</h1>
${body_html}
${watchers}
</body>
</html>
`;
}
