/**
 * The verifier's view of the event catalogue (engine/events/event_catalogue.ts, a
 * module of plain data that imports nothing): how the ledger recipe classes each event
 * type, and which signed request may open it. Nothing here is kept by hand, so an act
 * added to the engine as the catalogue declares it verifies on every client at once.
 */
import {
  EVENT_CATALOGUE,
  eventDeclaration,
  type EventDeclaration,
  type OpeningEvent,
} from '../engine/events/event_catalogue.js';
import { ACT_ROUTES, GENERIC_ACT_ROUTE } from '../engine/events/signed_routes.js';

export {
  AP_SPENDING_ACTS,
  AP_SPENT_LEDGER_REVISION,
  EVENT_TYPES,
  FOLLOW_UP_OPENERS,
  followUpKey,
  eventDeclaration,
  type EventType,
} from '../engine/events/event_catalogue.js';
export { GENERIC_ACT_ROUTE } from '../engine/events/signed_routes.js';

const typesOf = (wanted: EventDeclaration['class']) =>
  Object.entries(EVENT_CATALOGUE)
    .filter(([, declaration]) => declaration.class === wanted)
    .map(([event_type]) => event_type);

/**
 * Event types that a signed request always opens with, so an entry of one of them by
 * an agent carries that request's proof, or nothing shows the agent asked (an operator
 * could otherwise invent a vote, a motion or a refused Bedrock filing). The system's
 * own entries and the Founder's registration at genesis carry none.
 */
export const REQUEST_OPENING_EVENTS: ReadonlyMap<string, OpeningEvent> = new Map(
  typesOf('opens_request').map((event_type) => [event_type, EVENT_CATALOGUE[event_type as never] as OpeningEvent]),
);

/** Entries that follow the opening one within a request and carry no proof of their own. */
export const FOLLOW_UP_EVENTS: ReadonlySet<string> = new Set(typesOf('follows_request'));

/** The system's own entries: actor 'system', no proof. An agent is never their actor. */
export const SYSTEM_EVENTS: ReadonlySet<string> = new Set(typesOf('system'));

/** The act a signed path names, for the acts with a route of their own. */
export const ACT_OF_ROUTE: ReadonlyMap<string, string> = new Map(
  Object.entries(ACT_ROUTES).map(([act, route]) => [route, act]),
);

/** How the recipe treats an event type (undefined: one it does not know, which no agent may be the actor of). */
export function eventClass(event_type: string): EventDeclaration['class'] | undefined {
  return eventDeclaration(event_type)?.class;
}

/** The act a signed request asked for: named by its route, or by the `act` field of a POST /api/v1/act body. */
export function actOfSigned(route: string, signed: Record<string, unknown>): unknown {
  return route === GENERIC_ACT_ROUTE ? signed.act : ACT_OF_ROUTE.get(route);
}
