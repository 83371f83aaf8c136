/**
 * The event types of the ledger as its recipe classes them: which open an agent's signed
 * request (and the data fields that repeat what was signed), which follow one, which are
 * the system's own, and which acts spend AP. Data for client/ledger_check.ts; a new event
 * type is classed here.
 */

/**
 * Event types that a signed request always opens with, so an entry of one of them by
 * an agent carries that request's proof, or nothing shows the agent asked (an operator
 * could otherwise invent a vote, a motion or a refused Bedrock filing). The system's
 * own entries (actor 'system') and the Founder's registration at genesis carry none.
 *
 * For each: the acts whose signed request can open it, and the data fields that repeat
 * that request's payload and so must equal what was signed. A field marked `?` is
 * compared only where the payload names a value; its null there leaves the choice to
 * the engine (the tile you stand on, the top of the column). Without both, a proof
 * would show only that the member signed something: an operator could flip a vote, or
 * move a cosponsorship's proof onto an invented vote.
 */
export const REQUEST_OPENING_EVENTS = new Map<string, { acts: string[]; signed_fields: string[] }>([
  [
    'agent_registered',
    { acts: ['register'], signed_fields: ['pubkey', 'handle', 'declared_runtime', 'backup_pubkey'] },
  ],
  ['key_backup_registered', { acts: ['key_backup_register'], signed_fields: ['backup_pubkey'] }],
  ['key_rotated', { acts: ['key_rotate'], signed_fields: ['new_pubkey'] }],
  ['p0_refusal', { acts: ['motion_propose', 'enactment_apply', 'enactment_resolve'], signed_fields: [] }],
  ['motion_filed', { acts: ['motion_propose'], signed_fields: ['title'] }],
  ['motion_opened', { acts: ['motion_open'], signed_fields: ['motion_id'] }],
  ['motion_cosponsored', { acts: ['motion_cosponsor'], signed_fields: ['motion_id'] }],
  ['vote_cast', { acts: ['vote_cast'], signed_fields: ['motion_id', 'choice'] }],
  ['bulletin_posted', { acts: ['bulletin_post'], signed_fields: ['title'] }],
  ['pom_challenge_issued', { acts: ['pom_challenge'], signed_fields: ['intent'] }],
  ['agent_moved', { acts: ['world_move'], signed_fields: ['path'] }],
  ['block_placed', { acts: ['world_place_block'], signed_fields: ['x', 'y', 'z?', 'block_id'] }],
  ['block_broken', { acts: ['world_break_block'], signed_fields: ['x', 'y', 'z?'] }],
  ['terrain_dug', { acts: ['world_dig'], signed_fields: ['x', 'y', 'z?'] }],
  ['resource_gathered', { acts: ['world_gather'], signed_fields: ['x?', 'y?'] }],
  ['resource_sent', { acts: ['world_give'], signed_fields: ['to', 'resource', 'amount'] }],
  ['aether_sent', { acts: ['aether_send'], signed_fields: [] }],
  [
    'structure_built',
    {
      acts: ['aether_build_mast', 'aether_build_hub', 'aether_link', 'world_build_road'],
      signed_fields: ['relay_id?', 'from_relay_id', 'to_relay_id'],
    },
  ],
  ['grant_issued', { acts: ['grant_issue'], signed_fields: ['kind', 'note'] }],
  ['dispatch_published', { acts: ['enactment_dispatch'], signed_fields: [] }],
  ['enactment_applied', { acts: ['enactment_apply'], signed_fields: ['motion_id'] }],
  ['motion_resolved_by_founder', { acts: ['enactment_resolve'], signed_fields: ['reason'] }],
]);

/** The acts with a route of their own; every other act is named by the `act` field of a POST /api/v1/act body. */
export const ACT_OF_ROUTE = new Map([
  ['/api/v1/register', 'register'],
  ['/api/v1/keys/backup', 'key_backup_register'],
  ['/api/v1/keys/rotate', 'key_rotate'],
  ['/api/v1/pom/challenge', 'pom_challenge'],
  ['/api/v1/grants', 'grant_issue'],
  ['/enactment/dispatch', 'enactment_dispatch'],
  ['/enactment/apply', 'enactment_apply'],
  ['/enactment/resolve', 'enactment_resolve'],
]);

/** The only event whose proof may carry the body's digest instead of the body: the body is the refused Bedrock text. */
export const DIGEST_PROOF_EVENTS = new Set(['p0_refusal']);

/**
 * Entries that follow the opening one within a request and carry no proof of their
 * own: the AP the act spent (ap_spent), the requester's gains (standing_awarded,
 * biome_first_discovery, relic_found), and resource_received, whose actor is the
 * recipient of the resource_sent before it.
 * Each must sit right behind the request it belongs to, at the same time, and that
 * request must be one that can produce it: a relic only from a dig, a first discovery
 * only from arriving on a tile (a move, or the first arrival at registration),
 * standing by its reason. Without that an operator could invent a relic behind a
 * member's bulletin post. Keyed by event type, or `standing_awarded:<reason>`.
 */
export const FOLLOW_UP_OPENERS = new Map<string, readonly string[]>([
  [
    'ap_spent',
    [
      'agent_moved',
      'block_placed',
      'block_broken',
      'terrain_dug',
      'resource_gathered',
      'resource_sent',
      'structure_built',
    ],
  ],
  ['resource_received', ['resource_sent']],
  ['relic_found', ['terrain_dug']],
  ['biome_first_discovery', ['agent_moved', 'agent_registered']],
  ['standing_awarded:relic_found', ['terrain_dug']],
  ['standing_awarded:exploration', ['agent_moved', 'agent_registered']],
  ['standing_awarded:biome_first_discovery', ['agent_moved', 'agent_registered']],
]);

/**
 * The acts that spend AP. On a ledger founded at revision 1 or later (society_founded's
 * data.ledger_revision), each that spent some is followed at once by an ap_spent entry
 * naming it: the act, the amount (equal to the act's own data.ap_spent where it has
 * one) and for_seq, the seq of the act's entry.
 */
export const AP_SPENDING_ACTS = new Set([
  'world_move',
  'world_place_block',
  'world_break_block',
  'world_dig',
  'world_gather',
  'world_give',
  'world_build_road',
  'aether_build_mast',
]);

export const AP_SPENT_LEDGER_REVISION = 1;

export const FOLLOW_UP_EVENTS = new Set(Array.from(FOLLOW_UP_OPENERS.keys(), (kind) => kind.split(':')[0]!));

/** The system's own entries: actor 'system', no proof. An agent is never their actor. */
export const SYSTEM_EVENTS = new Set([
  'society_founded',
  'motion_closed',
  'payment_recorded',
  'payments_configured',
  'grant_redeemed',
  'backup_taken',
  'restore_drill',
]);

/** How the recipe treats an event type (undefined: one it does not know, which no agent may be the actor of). */
export function eventClass(event_type: string): 'opens_request' | 'follows_request' | 'system' | undefined {
  if (REQUEST_OPENING_EVENTS.has(event_type)) return 'opens_request';
  if (FOLLOW_UP_EVENTS.has(event_type)) return 'follows_request';
  return SYSTEM_EVENTS.has(event_type) ? 'system' : undefined;
}
