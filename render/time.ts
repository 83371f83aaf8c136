/*
 * Times on the human pages: when, relative to the moment the page was made ("5 minutes
 * ago", "in 2 days"), beside the absolute UTC minute. Relative alone cannot be quoted or
 * compared; absolute alone makes a reader do arithmetic.
 */
import { escapeHtml } from './escape.js';

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

const DAY_MS = 24 * 3600_000;

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * DAY_MS],
  ['month', 30 * DAY_MS],
  ['day', DAY_MS],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/**
 * "just now", "5 minutes ago", "in 3 days": the largest unit that fits, rounded down;
 * days are counted as UTC dates, so "tomorrow" is the date after today's beside it (a time
 * 1.9 days ahead, two dates on, is "in 2 days").
 */
export function relativeTime(at_ms: number, now_ms: number): string {
  const delta_ms = at_ms - now_ms;
  for (const [unit, unit_ms] of UNITS) {
    const count = Math.trunc(delta_ms / unit_ms);
    if (count === 0) continue;
    if (unit !== 'day') return relative.format(count, unit);
    return relative.format(Math.floor(at_ms / DAY_MS) - Math.floor(now_ms / DAY_MS), unit);
  }
  return 'just now';
}

/** "2026-11-23 14:02 UTC": the minute, in the one time zone every reader shares. */
export function absoluteTime(at_ms: number): string {
  return `${new Date(at_ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time on a page: relative, with the absolute minute beside it and the exact ISO time in `datetime`. */
export function timeHtml(iso: string, now_ms: number): string {
  const at_ms = Date.parse(iso);
  if (Number.isNaN(at_ms)) return escapeHtml(iso);
  return `<time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${relativeTime(at_ms, now_ms)}</time> <span class="at">(${absoluteTime(at_ms)})</span>`;
}

/** The same in plain text (Markdown): "2026-11-23 14:02 UTC (5 minutes ago)". */
export function timeText(iso: string, now_ms: number): string {
  const at_ms = Date.parse(iso);
  if (Number.isNaN(at_ms)) return iso;
  return `${absoluteTime(at_ms)} (${relativeTime(at_ms, now_ms)})`;
}
