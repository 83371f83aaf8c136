import type { WriteAct } from '../act.js';
import { invariant } from '../invariant.js';
import type { LedgerEvent } from '../ledger.js';
import { eventDeclaration, FOLLOW_UP_OPENERS, followUpKey, type OpeningEvent } from './event_catalogue.js';

/**
 * Holds what an act emitted to the event catalogue, before anything is chained: a
 * signed act opens its request with an event the catalogue says that act opens, then
 * only entries that may follow that event; a system act emits the system's own; AP is
 * spent only by an act declared to spend it. An act that strays from its declaration
 * is a bug the verifier would turn into a refused honest ledger, so it stops here, at
 * once, in the test that first runs it.
 */
export function checkEmitted(act: WriteAct, events: readonly LedgerEvent[], ap_spent: number): void {
  const [opening, ...rest] = events;
  invariant(opening !== undefined, `${act.name} applied without a ledger entry`);
  if (act.signer === 'system') return checkSystemAct(act, events);
  const declaration = eventDeclaration(opening.event_type);
  invariant(
    declaration?.class === 'opens_request' && Object.hasOwn(declaration.opened_by, act.name),
    `${act.name} opened its request with ${opening.event_type}, which the event catalogue does not list ${act.name} as opening`,
  );
  const opener = (declaration as OpeningEvent).opened_by[act.name]!;
  invariant(
    ap_spent === 0 || opener.spends_ap === true,
    `${act.name} spent ${ap_spent} AP, but the event catalogue does not declare that it spends AP (engine/events/event_catalogue.ts)`,
  );
  for (const event of rest) {
    const key = followUpKey(event.event_type, event.data);
    invariant(
      FOLLOW_UP_OPENERS.get(key)?.includes(opening.event_type) === true,
      `${act.name} emitted ${key} behind ${opening.event_type}, which the event catalogue does not let follow it`,
    );
  }
}

/** The system's acts emit system events; founding the society also registers the Founder, without a proof. */
function checkSystemAct(act: WriteAct, events: readonly LedgerEvent[]): void {
  for (const event of events) {
    const declaration = eventDeclaration(event.event_type);
    const founding = declaration?.class === 'opens_request' && declaration.at_genesis_without_proof === true;
    invariant(
      declaration?.class === 'system' || (founding && act.name === 'society_found'),
      `the system act ${act.name} emitted ${event.event_type}, which is not a system event in the event catalogue`,
    );
  }
}
