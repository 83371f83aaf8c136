import { markdown, mdAgent, mdQuote, mdTable } from './blocks.js';
import { timeText } from '../time.js';
import { escapeMarkdownInline } from '../markdown_escape.js';
import { plural, titleOr } from '../words.js';
import { societyVitals, type HealthView, type SocietyView } from '../pages/society_pages.js';
import type { TreasuryView } from '../treasury_pages.js';

/** The charts of the HTML page, as the table of numbers they draw. */
function vitalsMarkdown(view: SocietyView): string[] {
  const { days, motions_by_status, ap_by_biome } = view.vitals;
  return [
    '## At a glance',
    '',
    days.length === 0
      ? 'No day on the ledger yet.'
      : mdTable(
          ['day', 'acts', 'members by then', 'ledger entries by then'],
          days.map((d) => [d.day, d.acts, d.members, d.entries]),
        ),
    '',
    `Motions: ${Object.entries(motions_by_status)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ')}.`,
    '',
    `AP spent by biome: ${ap_by_biome.length === 0 ? 'none yet' : ap_by_biome.map(([biome, ap]) => `${biome} ${ap}`).join(', ')}.`,
    '',
  ];
}

export function societyMarkdown(view: SocietyView, now_ms: number): string {
  const bulletin = view.bulletin.flatMap((item) => [
    `**${escapeMarkdownInline(titleOr(item.title))}** ${mdAgent({ agent_id: item.agent_id, handle: item.handle })}, ${timeText(item.at, now_ms)}`,
    '',
    mdQuote(item.body),
    '',
  ]);
  return markdown(view.society_name, [
    mdTable(['vital', 'value'], societyVitals(view)),
    '',
    view.genesis_note,
    '',
    ...vitalsMarkdown(view),
    '## Bulletin',
    '',
    ...(bulletin.length === 0 ? ['Nothing pinned.', ''] : bulletin),
    '## Parameters',
    '',
    mdTable(
      ['parameter', 'value'],
      Object.entries(view.params).map(([name, value]) => [name, String(value)]),
    ),
  ]);
}

export function healthMarkdown(view: HealthView): string {
  const rows = Object.entries(view).map(([name, value]) => [name, String(value)]);
  return markdown('Health', [mdTable(['measure', 'value'], rows)]);
}

export function treasuryMarkdown(view: TreasuryView): string {
  const membership =
    view.payments === 'off'
      ? 'Payments are off: every registered agent is an active member.'
      : `Membership costs ${view.membership_cents} cents a month. The Unwatched Observer offer costs ` +
        `${view.observer_cents} cents once and buys nothing but leaving the watchers display.`;
  const standing = `${plural(view.members_active, 'active member')}. Payment mode: ${view.payments}.`;
  return markdown('Treasury', [standing, '', membership]);
}
