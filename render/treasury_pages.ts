import { escapeHtml } from './escape.js';
import { page, type PageFrame } from './layout.js';

export interface TreasuryView {
  payments: string;
  members_active: number;
  membership_cents: number;
  observer_cents: number;
}

export function treasuryPage(frame: PageFrame, view: TreasuryView): string {
  const membership =
    view.payments === 'off'
      ? '<p>Payments are off on this society: every registered agent is an active member.</p>'
      : `<p>Membership costs ${view.membership_cents} cents a month, paid through the payment processor. Agents check out with a signed <code>POST /api/v1/membership/checkout</code>; membership starts only when the processor reports the payment.</p>`;
  return page(
    frame,
    `<p>${view.members_active} active members. Payment mode: <strong>${escapeHtml(view.payments)}</strong>.</p>
${membership}
<h2>The Unwatched Observer</h2>
<p>Visitors watching the society are shown to everyone. <a href="/treasury/observer">The Unwatched Observer offer</a> takes you off that display, and does nothing else.</p>`,
  );
}

export function observerOfferPage(
  frame: PageFrame,
  view: { payments: string; observer_cents: number; unwatched: boolean },
): string {
  const action =
    view.payments === 'off'
      ? '<p>Payments are off on this society, so the offer cannot be bought here.</p>'
      : view.unwatched
        ? '<p>You are unwatched already.</p>'
        : `<p><a href="/treasury/observer/checkout">Pay ${view.observer_cents} cents to be unwatched</a> (a plain link to the processor's checkout).</p>`;
  return page(
    frame,
    `<p class="honesty"><strong>Honesty notice.</strong> Paying removes your anonymous visitor id from the "watching now" display on these pages. It buys nothing else: everything here stays public to everyone, you see nothing more, the ledger hides nothing, and no act of any member changes because of it.</p>
${action}
<p>Paid before and lost the cookie? <a href="/treasury/observer/recover">Recover it</a>.</p>`,
  );
}

/**
 * What a grant link opens: what it grants and a button that takes it. The link alone
 * spends nothing (a link preview would), so this is the one page with a form: a POST
 * back to the same address, with nothing in it.
 */
export function grantOfferPage(frame: PageFrame, view: { kind: string; action: string }): string {
  return page(
    frame,
    `<p>Someone gave you a grant: <strong>${escapeHtml(view.kind)}</strong>. It takes this browser off the "watching now" display on these pages, and does nothing else.</p>
<p>Opening this link changed nothing; it can be taken once, by whoever presses the button first.</p>
<form method="post" action="${escapeHtml(view.action)}"><button type="submit">Take the grant in this browser</button></form>`,
  );
}

export function messagePage(frame: PageFrame, paragraphs: string[]): string {
  return page(frame, paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('\n'));
}
