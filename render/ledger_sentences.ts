/*
 * Each ledger entry as a sentence a person reads ("ada moved 3 tiles north-east, 4 AP"),
 * one small function per event type. A sentence is a list of parts: our words, and the
 * things an entry names (an agent, a motion, a tile, an entry, a Dispatch, a member's
 * words), which the HTML and the Markdown renderings link, name or quote each their way.
 */
import { EVENT_TYPES, tileOf, type EventType } from '../engine/events/event_catalogue.js';
import { BLOCKS } from '../engine/index.js';
import { plural, UNTITLED } from './words.js';

export type SentencePart =
  | string
  | { agent: string }
  | { motion: string }
  | { tile: { x: number; y: number } }
  | { entry: number }
  | { dispatch: number }
  /** Words a member wrote: quoted, escaped and isolated wherever they are shown. */
  | { quote: string };

/** The entry as a sentence reads it. */
export interface SentenceEntry {
  seq: number;
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
}

/** A sentence from the entry's data and actor, and its tile where the event catalogue says it has one. */
type Sentence = (
  data: Record<string, any>,
  actor: string,
  tile: { x: number; y: number } | undefined,
) => SentencePart[];

/** Every event type the ledger's recipe knows (engine/events/event_catalogue.ts). */
export const KNOWN_EVENT_TYPES: readonly string[] = EVENT_TYPES;

/**
 * Entries that keep the books rather than tell what happened: a Proof of Machine
 * challenge handed out, and the AP an act spent (its own sentence says so already).
 * The explorer leaves them out unless asked, and says how many it left out.
 */
export const BOOKKEEPING_EVENTS: ReadonlySet<string> = new Set(['pom_challenge_issued', 'ap_spent']);

/** A placed block's name by its id: the engine's own table. */
const BLOCK_NAMES: Readonly<Record<number, string>> = BLOCKS;

const ap = (data: Record<string, any>): SentencePart[] =>
  typeof data.ap_spent === 'number' && data.ap_spent > 0 ? [`, ${data.ap_spent} AP`] : [];
const point = (value: any): { x: number; y: number } | undefined =>
  value && Number.isInteger(value.x) && Number.isInteger(value.y) ? { x: value.x, y: value.y } : undefined;
const at = (tile: { x: number; y: number } | undefined): SentencePart[] => (tile ? [' at ', { tile }] : []);
const depth = (data: Record<string, any>): SentencePart[] => (Number.isInteger(data.z) ? [` (z ${data.z})`] : []);

/** The compass direction of a move's net displacement (y grows southward). */
function direction(from: { x: number; y: number }, to: { x: number; y: number }): string {
  const north_south = to.y < from.y ? 'north' : to.y > from.y ? 'south' : '';
  const east_west = to.x > from.x ? 'east' : to.x < from.x ? 'west' : '';
  return [north_south, east_west].filter(Boolean).join('-');
}

const STRUCTURES: Record<string, Sentence> = {
  relay_mast: (data, actor, tile) => [
    { agent: actor },
    ` built relay mast #${data.relay_id}`,
    ...at(tile),
    ...ap(data),
  ],
  aether_hub: (data, actor, tile) => [{ agent: actor }, ` built the Aether Hub on mast #${data.relay_id}`, ...at(tile)],
  relay_link: (data, actor) => [
    { agent: actor },
    ` linked masts #${data.from_relay_id} and #${data.to_relay_id} (${plural(data.span, 'tile')}, ${data.silicon_spent} silicon)`,
  ],
  road: (data, actor, tile) => [
    { agent: actor },
    ' laid a road',
    ...at(tile),
    ...ap(data),
    `, ${data.slag_spent} slag`,
  ],
};

/** One per event type of the catalogue: a type without a sentence does not compile. */
const SENTENCES: Record<EventType, Sentence> = {
  society_founded: (data) => ['The society ', { quote: String(data.society_name ?? '') }, ' was founded'],
  agent_registered: (data, actor) => [
    { agent: actor },
    ' registered as ',
    { quote: String(data.handle) },
    ...(data.role === 'founder' ? [', the Founder'] : []),
  ],
  key_backup_registered: (data, actor) => [
    { agent: actor },
    data.replaced_backup_pubkey ? ' replaced their backup key' : ' registered a backup key',
  ],
  key_rotated: (data, actor) => [{ agent: actor }, ` rotated to a new primary key (generation ${data.key_generation})`],
  p0_refusal: (data, actor) => [
    { agent: actor },
    `: a ${String(data.op ?? 'change')} touching the Bedrock was refused and put on the P0 list`,
  ],
  motion_filed: (data, actor) => [
    { agent: actor },
    ' filed ',
    { motion: data.motion_id },
    ', ',
    { quote: String(data.title) },
    ` (${plural(data.changes, 'change')})`,
  ],
  motion_opened: (data, actor) => [{ agent: actor }, ' opened ', { motion: data.motion_id }, ' for voting'],
  motion_cosponsored: (data, actor) => [{ agent: actor }, ' cosponsored ', { motion: data.motion_id }],
  vote_cast: (data, actor) => [
    { agent: actor },
    ` voted ${data.choice} on `,
    { motion: data.motion_id },
    ...(data.revision > 0 ? [' (revised)'] : []),
  ],
  motion_closed: (data) => [
    { motion: data.motion_id },
    ` closed: ${data.status} (${data.tally?.aye ?? 0} aye, ${data.tally?.nay ?? 0} nay, ${data.tally?.abstain ?? 0} abstain)`,
  ],
  enactment_applied: (data, actor) => [
    { agent: actor },
    ' enacted ',
    { motion: data.motion_id },
    ` (${plural(Array.isArray(data.changes) ? data.changes.length : 0, 'change')})`,
  ],
  motion_resolved_by_founder: (data, actor) => [
    { agent: actor },
    ' resolved ',
    { motion: data.motion },
    ': ',
    { quote: String(data.reason ?? '') },
  ],
  dispatch_published: (data, actor) => [
    { agent: actor },
    ' published ',
    { dispatch: data.dispatch_id },
    ` (${plural(data.disclosures, 'disclosure')}${typeof data.note === 'string' ? ', with a note from the Founder' : ''})`,
  ],
  bulletin_posted: (data, actor) => {
    const title = String(data.title ?? '');
    return [{ agent: actor }, ' pinned a bulletin post, ', ...(title.trim() ? [{ quote: title }] : [UNTITLED])];
  },
  pom_challenge_issued: (data, actor) => [
    { agent: actor },
    ` was handed a Proof of Machine challenge (${data.kind}) for ${data.intent}`,
  ],
  agent_moved: (data, actor) => {
    const from = point(data.from);
    const to = point(data.to);
    const steps = Array.isArray(data.path) ? data.path.length : 0;
    const way = from && to ? direction(from, to) : '';
    return [
      { agent: actor },
      ` moved ${plural(steps, 'tile')}${way ? ` ${way}` : ''}`,
      ...(to ? [' to ', { tile: to }] : []),
      ...ap(data),
    ];
  },
  terrain_dug: (data, actor, tile) => [
    { agent: actor },
    ` dug ${data.yield}`,
    ...at(tile),
    ...depth(data),
    ...ap(data),
  ],
  resource_gathered: (data, actor, tile) => [
    { agent: actor },
    ` gathered ${data.amount} ${data.resource}`,
    ...at(tile),
    ...ap(data),
  ],
  block_placed: (data, actor, tile) => [
    { agent: actor },
    ` placed ${data.block ?? BLOCK_NAMES[data.block_id] ?? `block ${data.block_id}`}`,
    ...at(tile),
    ...depth(data),
    ...ap(data),
  ],
  block_broken: (data, actor, tile) => [
    { agent: actor },
    ` broke ${BLOCK_NAMES[data.block_id] ?? `block ${data.block_id}`}`,
    ...at(tile),
    ...depth(data),
    ...ap(data),
  ],
  resource_sent: (data, actor) => [
    { agent: actor },
    ` gave ${data.amount} ${data.resource} to `,
    { agent: String(data.to) },
    ...ap(data),
  ],
  resource_received: (data, actor) => [
    { agent: actor },
    ` received ${data.amount} ${data.resource} from `,
    { agent: String(data.from) },
  ],
  structure_built: (data, actor, tile) =>
    (STRUCTURES[data.structure] ?? ((d, a) => [{ agent: a }, ` built a ${d.structure}`, ...at(tile)]))(
      data,
      actor,
      tile,
    ),
  aether_sent: (data, actor) => [{ agent: actor }, ` sent message #${data.message_id} on the Aether`],
  ap_spent: (data, actor) => [
    { agent: actor },
    ` spent ${data.amount} AP on ${data.act} (`,
    { entry: data.for_seq },
    ')',
  ],
  standing_awarded: (data, actor) => [
    { agent: actor },
    ` was awarded ${data.points} standing for ${String(data.reason).replaceAll('_', ' ')}`,
  ],
  biome_first_discovery: (data, actor, tile) => [
    { agent: actor },
    ` was the first to reach ${data.biome}`,
    ...at(tile),
  ],
  relic_found: (data, actor, tile) => [{ agent: actor }, ' found a relic', ...at(tile)],
  grant_issued: (data, actor) => [{ agent: actor }, ` issued a one-time ${data.kind} grant link`],
  grant_redeemed: (data) => [`A one-time ${data.kind} grant link was taken`],
  payments_configured: (data) => [
    `Payments were set to ${data.mode}${data.previous ? ` (from ${data.previous})` : ''}`,
  ],
  payment_recorded: (data) => [
    `A payment was recorded (${data.type}, ${data.status})`,
    ...(data.agent_id ? [' for ', { agent: String(data.agent_id) }] : []),
  ],
  backup_taken: () => ['A backup of the store was taken'],
  restore_drill: (data) => [`A restore drill ${data.outcome === 'failed' ? 'failed' : 'passed'}`],
};

/** The sentence of an entry; an event type this version does not know still reads, plainly. */
export function sentenceOf(entry: SentenceEntry): SentencePart[] {
  const sentence = Object.hasOwn(SENTENCES, entry.event_type) ? SENTENCES[entry.event_type as EventType] : undefined;
  if (sentence) return sentence(entry.data ?? {}, entry.actor, tileOf(entry.event_type, entry.data));
  const who: SentencePart[] = entry.actor === 'system' ? ['The system'] : [{ agent: entry.actor }];
  return [...who, `: ${entry.event_type.replaceAll('_', ' ')}`];
}

/** The event types with a sentence of their own (for the test that every known type has one). */
export function eventTypesWithSentences(): string[] {
  return Object.keys(SENTENCES).sort();
}
