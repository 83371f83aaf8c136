import { markdown, mdQuote, mdTable } from './blocks.js';
import { escapeMarkdownInline } from '../markdown_escape.js';
import { societyVitals, type HealthView, type SocietyView } from '../pages/society_pages.js';
import type { TreasuryView } from '../treasury_pages.js';

export function societyMarkdown(view: SocietyView): string {
  const bulletin = view.bulletin.flatMap((item) => [
    `**${escapeMarkdownInline(item.title)}** ${item.agent_id} at ${item.at}`,
    '',
    mdQuote(item.body),
    '',
  ]);
  return markdown(view.society_name, [
    mdTable(['vital', 'value'], societyVitals(view)),
    '',
    view.genesis_note,
    '',
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
  const standing = `${view.members_active} active members. Payment mode: ${view.payments}.`;
  return markdown('Treasury', [standing, '', membership]);
}
