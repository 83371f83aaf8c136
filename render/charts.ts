import { plural } from './words.js';
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

/*
 * A legend's words stay dark (#444 on white, 9.7:1): a pale tone as text colour read at
 * 1.6:1. Only the swatch before each word takes the tone, through --swatch.
 */
export const CHART_CSS = `.chart{display:block;width:100%;max-width:32rem;height:auto}
.chart .aye{fill:#2e7d32}.chart .nay{fill:#c62828}.chart .abstain{fill:#9e9e9e}.chart .rest{fill:#eee}
.chart .a{fill:#9ccc65}.chart .b{fill:#2e7d32}.chart .c{fill:#e6c96a}.chart .d{fill:#8d6e63}.chart .e{fill:#9e9e9e}.chart .f{fill:#4a90d9}.chart .g{fill:#5d4037}
.chart .bar{fill:#4a6fa5}.chart .axis{stroke:#999;stroke-width:1}.chart .marker{stroke:#222;stroke-width:2}
.chart text{font:11px system-ui,sans-serif;fill:#444}.legend{font-size:.85em;color:#444}
.legend span{white-space:nowrap}.legend span::before{content:"";display:inline-block;width:.7em;height:.7em;margin:0 .25em 0 .6em;background:var(--swatch);border:1px solid #0006}
.legend .aye{--swatch:#2e7d32}.legend .nay{--swatch:#c62828}.legend .abstain{--swatch:#9e9e9e}
.legend .a{--swatch:#9ccc65}.legend .b{--swatch:#2e7d32}.legend .c{--swatch:#e6c96a}.legend .d{--swatch:#8d6e63}.legend .e{--swatch:#9e9e9e}.legend .f{--swatch:#4a90d9}.legend .g{--swatch:#5d4037}`;

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

/** The fewest columns a chart is laid out for: one day of data is a column, not a block across the chart. */
const COLUMN_SLOTS_MIN = 7;
/** The column chart's rows: its top label above the tallest column (never over it), the axis, the day labels. */
const COLUMN_TOP = 16;
const COLUMN_AXIS = 75;

/** What a chart counts, as one and as many ("1 member", "2 members"). */
export type ChartUnit = readonly [one: string, many: string];

const counted = (count: number, [one, many]: ChartUnit) => plural(count, one, many);

/**
 * Columns over days (or any labelled points), with the first and last label under the axis
 * and the largest value above the columns. A `running` series is a total at each day's end
 * (members, entries): its sentence says where it ended, not a sum of the days.
 */
export function columnChart(
  title: string,
  points: readonly { label: string; value: number }[],
  unit: ChartUnit,
  { running = false }: { running?: boolean } = {},
): string {
  if (points.length === 0 || points.every((point) => point.value === 0))
    return `<p class="legend">${escapeHtml(title)}: no data yet.</p>`;
  const max = Math.max(...points.map((point) => point.value));
  const step = WIDTH / Math.max(points.length, COLUMN_SLOTS_MIN);
  const bars = points
    .map((point, index) => {
      const bar = (point.value / max) * (COLUMN_AXIS - COLUMN_TOP);
      return `<rect class="bar" x="${(index * step + step * 0.1).toFixed(1)}" y="${(COLUMN_AXIS - bar).toFixed(1)}" width="${(step * 0.8).toFixed(1)}" height="${bar.toFixed(1)}"><title>${escapeHtml(`${point.label}: ${counted(point.value, unit)}`)}</title></rect>`;
    })
    .join('');
  const first = points[0]!;
  const last = points.at(-1)!;
  const day_labels = `<text x="0" y="88">${escapeHtml(first.label)}</text>${points.length > 1 ? `<text x="${WIDTH}" y="88" text-anchor="end">${escapeHtml(last.label)}</text>` : ''}`;
  const axis = `<line class="axis" x1="0" x2="${WIDTH}" y1="${COLUMN_AXIS + 0.5}" y2="${COLUMN_AXIS + 0.5}"/>${day_labels}<text x="0" y="${COLUMN_TOP - 5}">${escapeHtml(counted(max, unit))}</text>`;
  return described(title, columnSentence(points, unit, running), `${bars}${axis}`, 90);
}

function columnSentence(
  points: readonly { label: string; value: number }[],
  unit: ChartUnit,
  running: boolean,
): string {
  const first = points[0]!;
  const last = points.at(-1)!;
  if (points.length === 1) return `${counted(last.value, unit)} on ${last.label}, one day so far`;
  if (running) return `${counted(last.value, unit)} by ${last.label}, from ${first.value} on ${first.label}`;
  const total = points.reduce((sum, point) => sum + point.value, 0);
  const max = Math.max(...points.map((point) => point.value));
  return `${counted(total, unit)} from ${first.label} to ${last.label}; the most, ${max}, on ${points.find((point) => point.value === max)!.label}`;
}
