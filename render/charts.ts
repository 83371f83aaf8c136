/*
 * Small charts drawn on the server as inline SVG: no script, no style attribute (the CSP
 * allows neither), presentation by SVG attributes and CSS classes. Each chart carries a
 * title and a sentence a screen reader (and the Markdown twin) reads instead, and scales
 * to its container through its viewBox.
 */
import { escapeHtml } from './escape.js';

export interface Segment {
  label: string;
  value: number;
  /** A CSS class of CHART_CSS: its colour. */
  tone: 'aye' | 'nay' | 'abstain' | 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g';
}

export const CHART_CSS = `.chart{display:block;width:100%;max-width:32rem;height:auto}
.chart .aye{fill:#2e7d32}.chart .nay{fill:#c62828}.chart .abstain{fill:#9e9e9e}.chart .rest{fill:#eee}
.chart .a{fill:#9ccc65}.chart .b{fill:#2e7d32}.chart .c{fill:#e6c96a}.chart .d{fill:#8d6e63}.chart .e{fill:#9e9e9e}.chart .f{fill:#4a90d9}.chart .g{fill:#5d4037}
.chart .bar{fill:#4a6fa5}.chart .axis{stroke:#999;stroke-width:1}.chart .marker{stroke:#222;stroke-width:2}
.chart text{font:11px system-ui,sans-serif;fill:#444}.legend{font-size:.85em;color:#444}
.legend span::before{content:"";display:inline-block;width:.7em;height:.7em;margin:0 .25em 0 .6em;background:currentColor}
.legend .aye{color:#2e7d32}.legend .nay{color:#c62828}.legend .abstain{color:#9e9e9e}
.legend .a{color:#9ccc65}.legend .b{color:#2e7d32}.legend .c{color:#e6c96a}.legend .d{color:#8d6e63}.legend .e{color:#9e9e9e}.legend .f{color:#4a90d9}.legend .g{color:#5d4037}`;

const WIDTH = 300;

/** The sentence a chart says in words. */
function described(title: string, sentence: string, svg_body: string, height: number): string {
  return `<figure class="chart-figure"><svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(`${title}: ${sentence}`)}"><title>${escapeHtml(title)}</title>${svg_body}</svg><figcaption class="legend">${escapeHtml(sentence)}</figcaption></figure>`;
}

/**
 * One bar cut into segments (a tally, a distribution), out of `total` when the bar stands
 * for more than its segments, with an optional marker (a quorum) on the same scale.
 */
export function segmentedBar(
  title: string,
  segments: readonly Segment[],
  options: { total?: number; marker?: { at: number; label: string } } = {},
): string {
  const sum = segments.reduce((total, segment) => total + segment.value, 0);
  const total = Math.max(options.total ?? sum, sum, options.marker?.at ?? 0, 1);
  let x = 0;
  const rects = segments
    .filter((segment) => segment.value > 0)
    .map((segment) => {
      const width = (segment.value / total) * WIDTH;
      const rect = `<rect class="${segment.tone}" x="${x.toFixed(1)}" y="4" width="${width.toFixed(1)}" height="18"><title>${escapeHtml(`${segment.label}: ${segment.value}`)}</title></rect>`;
      x += width;
      return rect;
    })
    .join('');
  const marker = options.marker
    ? `<line class="marker" x1="${((options.marker.at / total) * WIDTH).toFixed(1)}" x2="${((options.marker.at / total) * WIDTH).toFixed(1)}" y1="0" y2="26"/>`
    : '';
  const words = segments.map((segment) => `${segment.label} ${segment.value}`).join(', ');
  const sentence = `${words}${options.marker ? `; ${options.marker.label}` : ''}`;
  const legend = segments
    .map((segment) => `<span class="${segment.tone}">${escapeHtml(segment.label)}</span>`)
    .join('');
  return `${described(title, sentence, `<rect class="rest" x="0" y="4" width="${WIDTH}" height="18"/>${rects}${marker}`, 26)}<p class="legend">${legend}</p>`;
}

/** Columns over days (or any labelled points), with the first and last label under the axis. */
export function columnChart(title: string, points: readonly { label: string; value: number }[], unit: string): string {
  if (points.length === 0 || points.every((point) => point.value === 0))
    return `<p class="legend">${escapeHtml(title)}: no data yet.</p>`;
  const max = Math.max(...points.map((point) => point.value));
  const height = 90;
  const step = WIDTH / points.length;
  const bars = points
    .map((point, index) => {
      const bar = (point.value / max) * 70;
      return `<rect class="bar" x="${(index * step + step * 0.1).toFixed(1)}" y="${(75 - bar).toFixed(1)}" width="${(step * 0.8).toFixed(1)}" height="${bar.toFixed(1)}"><title>${escapeHtml(`${point.label}: ${point.value} ${unit}`)}</title></rect>`;
    })
    .join('');
  const first = points[0]!;
  const last = points.at(-1)!;
  const axis = `<line class="axis" x1="0" x2="${WIDTH}" y1="75.5" y2="75.5"/><text x="0" y="88">${escapeHtml(first.label)}</text>${points.length > 1 ? `<text x="${WIDTH}" y="88" text-anchor="end">${escapeHtml(last.label)}</text>` : ''}<text x="0" y="10">${max} ${escapeHtml(unit)}</text>`;
  const total = points.reduce((sum, point) => sum + point.value, 0);
  const sentence = `${total} ${unit} from ${first.label} to ${last.label}; the most, ${max}, on ${points.find((point) => point.value === max)!.label}`;
  return described(title, sentence, `${bars}${axis}`, height);
}
