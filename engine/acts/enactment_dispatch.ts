import { z } from 'zod';
import { defineAct } from '../act.js';
import { chronicle } from '../governance/governance_state.js';
import { LEDGER_ENTRY_BYTES_MAX } from '../ledger.js';
import { asOneLine, multiLineText } from '../text.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

/** The most code points of the Founder's own words in a Dispatch. */
export const dispatch_note_chars_max = 2000;

export const DispatchSchema = z.strictObject({
  // Optional, with no default: Founder clients that sign `{}` sign exactly what is checked.
  note: multiLineText(dispatch_note_chars_max)
    .min(1)
    .optional()
    .describe(
      `The Founder's own words, shown above the disclosures: 1 to ${dispatch_note_chars_max} characters (code points), lines separated by \\n; omit it for none.`,
    ),
});

/**
 * The most bytes a Dispatch's text may take in its entry (JSON-escaped, UTF-8): the
 * entry cap less its envelope, the Founder's proof of an empty body and the counts,
 * with room to spare. Disclosures past it wait for the next Dispatch, in order.
 */
export const dispatch_text_bytes_max = LEDGER_ENTRY_BYTES_MAX - 2_000;

/**
 * The bytes a note adds to its Dispatch entry: once in data (`,"note":"..."`) and once in
 * the proof's signed body, where the body's JSON is escaped a second time.
 */
function noteEntryBytes(note: string | undefined): number {
  if (note === undefined) return 0;
  const in_data = Buffer.byteLength(`,"note":${JSON.stringify(note)}`, 'utf8');
  const in_proof =
    Buffer.byteLength(JSON.stringify(JSON.stringify({ note })), 'utf8') -
    Buffer.byteLength(JSON.stringify('{}'), 'utf8');
  return in_data + in_proof;
}

/** How many of the lines, joined by \n, fit in max_bytes as JSON text; at least one (a single disclosure is far under it). */
function linesThatFit(lines: readonly string[], max_bytes: number): number {
  let bytes = 2; // the quotes around the string
  for (const [index, line] of lines.entries()) {
    // A line's escaped size, less its quotes, plus the two bytes of the escaped \n before it.
    bytes += Buffer.byteLength(JSON.stringify(line), 'utf8') - 2 + (index > 0 ? 2 : 0);
    if (bytes > max_bytes && index > 0) return index;
  }
  return lines.length;
}

/**
 * Founder only: the daily Dispatch. Append-only and one-way (A3); it lists the
 * disclosures queued since the last one ('Nothing new.' if none), as many as its entry
 * holds (all of them, short of hundreds), and drains them from the queue in the same
 * commit as its publication.
 */
export const enactmentDispatch = defineAct({
  name: 'enactment_dispatch',
  summary:
    "Founder only: publishes the Dispatch, listing what was applied, resolved and refused at the Bedrock boundary since the last one ('Nothing new.' when nothing), with the Founder's own note when given.",
  payload: DispatchSchema,
  signer: 'primary',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.enactment_dispatch },
  gates: { membership: false, pom: false, founder: true },
  apply(ctx, { note }) {
    const governance = ctx.state.governance;
    const dispatch_id = governance.dispatches.length + 1;
    const lines = governance.disclosures.map((item) => `- ${asOneLine(item.text)}`);
    // The note shares the entry with the disclosures: what it takes, fewer of them carry.
    const taken = linesThatFit(lines, dispatch_text_bytes_max - noteEntryBytes(note));
    const items = governance.disclosures.slice(0, taken);
    const text = items.length === 0 ? 'Nothing new.' : lines.slice(0, taken).join('\n');
    governance.dispatches.push({ dispatch_id, at_ms: ctx.at_ms, text, items, ...(note === undefined ? {} : { note }) });
    governance.disclosures = governance.disclosures.slice(taken);
    chronicle(governance, ctx.at_ms, 'dispatch', `Dispatch ${dispatch_id} published`);
    ctx.emit({
      event_type: 'dispatch_published',
      actor: ctx.actor,
      data: { dispatch_id, disclosures: items.length, text, ...(note === undefined ? {} : { note }) },
    });
    return { ok: true, result: { dispatch_id, text, disclosures_drained: items.length } };
  },
});
