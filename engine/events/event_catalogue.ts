/**
 * The event catalogue: every ledger event type, declared once. Beside the act and read
 * catalogues, it says what the ledger recipe needs to judge an entry: who may be its
 * actor (an agent opening a signed request, an agent's entry following one, or the
 * system), which acts' signed requests open it and which of their payload fields its
 * data repeats, which of those acts spend AP, which entries may follow which, and where
 * its tile is. The engine checks every act's events against it as they are emitted
 * (emit_check.ts); the verifier's tables (client/ledger_events.ts), the explorer's
 * sentences, the OpenAPI entry schemas, docs/protocol.md's table and the recipe in
 * docs/vectors are made from it. It imports nothing, so any client can load it.
 */

/** A data field that repeats the signed payload: `payload` in the payload equals `data` (a dotted path) in the entry. */
export interface SignedField {
  payload: string;
  data: string;
  /** Compared only where the payload gives a value: null there leaves the choice to the engine (the tile you stand on). */
  when_given?: true;
}

/** An act whose signed request opens the event. */
export interface Opener {
  signed_fields: readonly SignedField[];
  /** The act spends AP: on a ledger of revision 1 or later an ap_spent entry follows its entry at once. */
  spends_ap?: true;
}

interface EventBase {
  /** What the entry records, in one line (docs/protocol.md's table). */
  summary: string;
  /** The data field holding the entry's tile ({x, y} or {x, y, z}), '.' when x and y are data's own; absent when it has none. */
  tile?: string;
}

export interface OpeningEvent extends EventBase {
  class: 'opens_request';
  opened_by: Readonly<Record<string, Opener>>;
  /** Whose key signed the request: the actor's primary key unless the event brings or uses another. */
  signed_by?: 'data.pubkey' | 'backup_key';
  /**
   * Fields through which the event brings a key onto the ledger, and which of the
   * actor's keys each becomes from then on; each must be a canonical prime-order key
   * (null allowed where marked: no backup key).
   */
  key_fields?: readonly { field: string; becomes: 'primary' | 'backup'; nullable?: true }[];
  /** The proof carries the body's SHA-256 instead of the body (the refused text must not be republished), equal to data.payload_sha256. */
  digest_proof?: true;
  /** The Founder's own registration at genesis, made by the system act society_found, carries no proof. */
  at_genesis_without_proof?: true;
}

export interface FollowingEvent extends EventBase {
  class: 'follows_request';
  /**
   * The opening events it may follow within one request; keyed by data.reason where
   * the reason decides. ap_spent's openers are made from the acts that spend AP.
   */
  follows: readonly OpeningEventType[] | Readonly<Record<string, readonly OpeningEventType[]>> | 'acts that spend AP';
  /** The actor is the agent this field of the opening entry's data names (the recipient of a gift), not the requester. */
  actor_from_opening?: string;
}

export interface SystemEvent extends EventBase {
  class: 'system';
}

export type EventDeclaration = OpeningEvent | FollowingEvent | SystemEvent;

const same = (...names: string[]): SignedField[] => names.map((name) => ({ payload: name, data: name }));
const given = (...names: string[]): SignedField[] =>
  names.map((name) => ({ payload: name, data: name, when_given: true }));
const AFTER_ARRIVING = ['agent_moved', 'agent_registered'] as const;

const OPENING = {
  agent_registered: {
    class: 'opens_request',
    summary: 'An agent registered its key and handle (the Founder at genesis, without a proof)',
    opened_by: { register: { signed_fields: same('pubkey', 'handle', 'declared_runtime', 'backup_pubkey') } },
    signed_by: 'data.pubkey',
    key_fields: [
      { field: 'pubkey', becomes: 'primary' },
      { field: 'backup_pubkey', becomes: 'backup', nullable: true },
    ],
    at_genesis_without_proof: true,
    tile: 'position',
  },
  key_backup_registered: {
    class: 'opens_request',
    summary: 'A member registered (or replaced) its backup key',
    opened_by: { key_backup_register: { signed_fields: same('backup_pubkey') } },
    key_fields: [{ field: 'backup_pubkey', becomes: 'backup' }],
  },
  key_rotated: {
    class: 'opens_request',
    summary: 'A member replaced its primary key, signed with its backup key',
    opened_by: { key_rotate: { signed_fields: same('new_pubkey') } },
    signed_by: 'backup_key',
    key_fields: [{ field: 'new_pubkey', becomes: 'primary' }],
  },
  p0_refusal: {
    class: 'opens_request',
    summary: 'A change to the Bedrock rules was refused and recorded, its text only as a hash',
    opened_by: {
      motion_propose: { signed_fields: [] },
      enactment_apply: { signed_fields: [] },
      enactment_resolve: { signed_fields: [] },
    },
    digest_proof: true,
  },
  motion_filed: {
    class: 'opens_request',
    summary: 'A member filed a motion',
    opened_by: { motion_propose: { signed_fields: same('title') } },
  },
  motion_opened: {
    class: 'opens_request',
    summary: 'A motion opened for voting, with its quorum fixed',
    opened_by: { motion_open: { signed_fields: same('motion_id') } },
  },
  motion_cosponsored: {
    class: 'opens_request',
    summary: 'A member cosponsored a motion',
    opened_by: { motion_cosponsor: { signed_fields: same('motion_id') } },
  },
  vote_cast: {
    class: 'opens_request',
    summary: 'A member voted on a motion (a later vote supersedes it)',
    opened_by: { vote_cast: { signed_fields: same('motion_id', 'choice') } },
  },
  bulletin_posted: {
    class: 'opens_request',
    summary: 'A member posted to the bulletin',
    opened_by: { bulletin_post: { signed_fields: same('title') } },
  },
  pom_challenge_issued: {
    class: 'opens_request',
    summary: 'A Proof of Machine challenge was handed to a member',
    opened_by: { pom_challenge: { signed_fields: same('intent') } },
  },
  agent_moved: {
    class: 'opens_request',
    summary: 'A member walked a path',
    opened_by: { world_move: { signed_fields: same('path'), spends_ap: true } },
    tile: 'to',
  },
  block_placed: {
    class: 'opens_request',
    summary: 'A member placed a block',
    opened_by: {
      world_place_block: { signed_fields: [...same('x', 'y'), ...given('z'), ...same('block_id')], spends_ap: true },
    },
    tile: '.',
  },
  block_broken: {
    class: 'opens_request',
    summary: 'A member broke a placed block',
    opened_by: { world_break_block: { signed_fields: [...same('x', 'y'), ...given('z')], spends_ap: true } },
    tile: '.',
  },
  terrain_dug: {
    class: 'opens_request',
    summary: 'A member dug out a cell of terrain',
    opened_by: { world_dig: { signed_fields: [...same('x', 'y'), ...given('z')], spends_ap: true } },
    tile: '.',
  },
  resource_gathered: {
    class: 'opens_request',
    summary: 'A member gathered a resource from the surface',
    opened_by: { world_gather: { signed_fields: given('x', 'y'), spends_ap: true } },
    tile: '.',
  },
  resource_sent: {
    class: 'opens_request',
    summary: 'A member gave resources to another',
    opened_by: { world_give: { signed_fields: same('to', 'resource', 'amount'), spends_ap: true } },
  },
  aether_sent: {
    class: 'opens_request',
    summary: 'A member sent a message on the Aether (its text is in the Aether, not on the ledger)',
    opened_by: { aether_send: { signed_fields: [] } },
  },
  structure_built: {
    class: 'opens_request',
    summary: 'A member built a relay mast, the Aether Hub, a link between masts, or a road',
    opened_by: {
      aether_build_mast: { signed_fields: [], spends_ap: true },
      aether_build_hub: { signed_fields: same('relay_id') },
      aether_link: { signed_fields: same('from_relay_id', 'to_relay_id') },
      world_build_road: {
        signed_fields: [
          { payload: 'x', data: 'position.x' },
          { payload: 'y', data: 'position.y' },
        ],
        spends_ap: true,
      },
    },
    tile: 'position',
  },
  grant_issued: {
    class: 'opens_request',
    summary: 'The Founder issued a grant (its token only as a hash)',
    opened_by: { grant_issue: { signed_fields: same('kind', 'note') } },
  },
  dispatch_published: {
    class: 'opens_request',
    summary: 'The Founder published a Dispatch',
    opened_by: { enactment_dispatch: { signed_fields: given('note') } },
  },
  enactment_applied: {
    class: 'opens_request',
    summary: 'The Founder applied a motion that passed',
    opened_by: { enactment_apply: { signed_fields: same('motion_id') } },
  },
  motion_resolved_by_founder: {
    class: 'opens_request',
    summary: 'The Founder closed a passed motion without applying it, giving a reason',
    opened_by: {
      // The entry names its motion `motion` (as it always has); the request names it motion_id.
      enactment_resolve: { signed_fields: [{ payload: 'motion_id', data: 'motion' }, ...same('reason')] },
    },
  },
} as const satisfies Record<string, OpeningEvent>;

const FOLLOWING = {
  ap_spent: {
    class: 'follows_request',
    summary: 'What an act cost its actor, right behind the act (ledger revision 1 and later)',
    follows: 'acts that spend AP',
  },
  standing_awarded: {
    class: 'follows_request',
    summary: 'Standing the engine granted for what the request achieved, with its reason',
    follows: {
      relic_found: ['terrain_dug'],
      exploration: AFTER_ARRIVING,
      biome_first_discovery: AFTER_ARRIVING,
    },
    tile: 'site',
  },
  biome_first_discovery: {
    class: 'follows_request',
    summary: 'The first member ever to stand on a biome',
    follows: AFTER_ARRIVING,
    tile: 'position',
  },
  relic_found: {
    class: 'follows_request',
    summary: 'A dig turned up a relic',
    follows: ['terrain_dug'],
    tile: 'site',
  },
  resource_received: {
    class: 'follows_request',
    summary: 'The recipient of a gift received it (its actor is the recipient, who asked for nothing)',
    follows: ['resource_sent'],
    actor_from_opening: 'to',
  },
} as const satisfies Record<string, FollowingEvent>;

const SYSTEM = {
  society_founded: { class: 'system', summary: 'The society was founded: world seed, parameters, ledger revision' },
  motion_closed: { class: 'system', summary: 'A motion closed with its tally and outcome' },
  payment_recorded: { class: 'system', summary: 'A payment or refund from the payment processor was recorded' },
  payments_configured: { class: 'system', summary: 'Membership payments were configured' },
  grant_redeemed: { class: 'system', summary: 'A visitor redeemed a grant' },
  backup_taken: { class: 'system', summary: 'The operator took a backup of the store' },
  restore_drill: { class: 'system', summary: 'The operator ran a restore drill and recorded its result' },
} as const satisfies Record<string, SystemEvent>;

/** Every event type, by name. */
export const EVENT_CATALOGUE: Readonly<Record<EventType, EventDeclaration>> = { ...OPENING, ...FOLLOWING, ...SYSTEM };

export type OpeningEventType = keyof typeof OPENING;
export type EventType = OpeningEventType | keyof typeof FOLLOWING | keyof typeof SYSTEM;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE).sort() as EventType[];

/** Every data field some event declares its tile in ('.' for data's own x and y), once each, in catalogue order. */
export const EVENT_TILE_FIELDS: readonly string[] = [
  ...new Set(Object.values(EVENT_CATALOGUE).flatMap((event) => (event.tile === undefined ? [] : [event.tile]))),
];

export function eventDeclaration(event_type: string): EventDeclaration | undefined {
  return Object.hasOwn(EVENT_CATALOGUE, event_type) ? EVENT_CATALOGUE[event_type as EventType] : undefined;
}

/** The first ledger revision (society_founded's data.ledger_revision) whose acts that spend AP are followed by an ap_spent entry. */
export const AP_SPENT_LEDGER_REVISION = 1;

/** The acts that spend AP, from their opening events' declarations. */
export const AP_SPENDING_ACTS: ReadonlySet<string> = new Set(
  Object.values(OPENING).flatMap((event) =>
    Object.entries(event.opened_by as Record<string, Opener>)
      .filter(([, opener]) => opener.spends_ap)
      .map(([act]) => act),
  ),
);

/** The opening events a following event may come behind, keyed by event type, or `<event type>:<reason>` where its data.reason decides. */
export const FOLLOW_UP_OPENERS: ReadonlyMap<string, readonly string[]> = followUpOpeners();

/** The key FOLLOW_UP_OPENERS holds an entry's openers under. */
export function followUpKey(event_type: string, data: Readonly<Record<string, unknown>> | undefined): string {
  const declaration = eventDeclaration(event_type);
  const by_reason =
    declaration?.class === 'follows_request' &&
    !Array.isArray(declaration.follows) &&
    typeof declaration.follows === 'object';
  return by_reason ? `${event_type}:${String(data?.reason)}` : event_type;
}

function followUpOpeners(): Map<string, readonly string[]> {
  const openers = new Map<string, readonly string[]>();
  const spending = Object.entries(OPENING)
    .filter(([, event]) => Object.values(event.opened_by as Record<string, Opener>).some((opener) => opener.spends_ap))
    .map(([event_type]) => event_type);
  for (const [event_type, event] of Object.entries(FOLLOWING) as [string, FollowingEvent][]) {
    if (event.follows === 'acts that spend AP') openers.set(event_type, spending);
    else if (Array.isArray(event.follows)) openers.set(event_type, event.follows);
    else
      for (const [reason, after] of Object.entries(event.follows as Record<string, readonly string[]>))
        openers.set(`${event_type}:${reason}`, after);
  }
  return openers;
}

/** The tile an entry names, where its declaration says it has one and the data holds whole coordinates there. */
export function tileOf(
  event_type: string,
  data: Readonly<Record<string, unknown>> | undefined,
): { x: number; y: number } | undefined {
  const field = eventDeclaration(event_type)?.tile;
  if (field === undefined || !data) return undefined;
  const place = (field === '.' ? data : data[field]) as Record<string, unknown> | null | undefined;
  if (!place || typeof place !== 'object') return undefined;
  const { x, y } = place;
  return Number.isInteger(x) && Number.isInteger(y) ? { x: x as number, y: y as number } : undefined;
}
