/**
 * The `data` of every ledger event type, as a zod schema a client can read in the
 * OpenAPI document. Objects are loose: docs/protocol.md promises that an event's data
 * may gain fields without a new API version. A field is required only where every
 * version of the engine since the event existed wrote it, so that old ledgers still
 * validate; the emit sites (engine/acts/, engine/world/, engine/governance/, apply.ts)
 * are the source of truth.
 */
import { z } from 'zod';
import { AGENT_ID_PATTERN, PUBKEY_PATTERN } from '../identity.js';
import { IsoTime } from '../read.js';
import { DIRECTION_NAMES, type Direction } from '../world/geometry.js';
import { BIOMES, RESOURCES } from '../world/materials.js';
import type { EventType } from './event_catalogue.js';

const agentId = (what: string) => z.string().regex(AGENT_ID_PATTERN).describe(`${what} (ag_ and 16 hex digits)`);
const pubkey = (what: string) =>
  z.string().regex(PUBKEY_PATTERN).describe(`${what}: ed25519, base64url without padding`);
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const sha256Hex = (what: string) => z.string().regex(HEX_SHA256).describe(`hex SHA-256 of ${what}`);
const whole = (what: string) => z.int().min(0).describe(what);
/** The cell fields that world acts on one cell write at the top level of their data. */
const cellFields = {
  x: z.int().describe('column, west to east'),
  y: z.int().describe('row, north to south'),
  z: z.int().describe('height, 0 at the bottom of the world'),
};
const tile = (what: string) => z.looseObject({ x: cellFields.x, y: cellFields.y }).describe(`${what}: tile {x, y}`);
const cell = (what: string) => z.looseObject(cellFields).describe(`${what}: cell {x, y, z}`);
const resource = (what: string) => z.enum(RESOURCES).describe(what);
const motionId = (what: string) => z.string().describe(`${what} (M-<4 digits>-<4 hex>)`);
const apSpent = () => whole('AP the act cost');

const structureBuilt = z
  .discriminatedUnion('structure', [
    z.looseObject({
      structure: z.literal('relay_mast').describe('a relay mast, raised on the tile its builder stands on'),
      agent_id: agentId('the builder'),
      relay_id: z.int().min(1).describe('number of the new mast, from 1 in building order'),
      position: tile('where the mast stands'),
    }),
    z.looseObject({
      structure: z.literal('aether_hub').describe('the Aether Hub, built on a relay mast'),
      agent_id: agentId('the builder'),
      relay_id: z.int().min(1).describe('the mast the Hub stands on'),
      position: tile('where the Hub stands (its mast)'),
    }),
    z.looseObject({
      structure: z.literal('relay_link').describe('a link between two relay masts'),
      agent_id: agentId('the builder'),
      from_relay_id: z.int().min(1).describe('the mast the builder stood by'),
      to_relay_id: z.int().min(1).describe('the mast linked to it'),
      span: whole('distance between the masts, in tiles (the larger of the x and y distances)'),
      silicon_spent: whole('units of silicon the link took'),
    }),
    z.looseObject({
      structure: z.literal('road').describe('a road on a land tile'),
      agent_id: agentId('the builder'),
      position: tile('where the road lies'),
      ap_spent: apSpent(),
      slag_spent: whole('units of slag the road took'),
    }),
  ])
  .describe('What was built, by structure: a relay mast, the Aether Hub, a link between masts, or a road');

const standingBase = {
  agent_id: agentId('the member awarded'),
  points: z.int().min(1).describe('standing awarded by this entry'),
  standing: whole("the member's standing after the award"),
};
const standingAwarded = z
  .discriminatedUnion('reason', [
    z.looseObject({
      reason: z.literal('exploration').describe('first to reveal tiles (up to a daily number of tiles)'),
      ...standingBase,
      tiles: z.int().min(1).describe('tiles the award pays for'),
    }),
    z.looseObject({
      reason: z.literal('biome_first_discovery').describe('first member ever to stand on a biome'),
      ...standingBase,
      biome: z.enum(BIOMES).describe('the biome'),
    }),
    z.looseObject({
      reason: z.literal('relic_found').describe('a dig turned up a relic'),
      ...standingBase,
      site: cell('where the relic was'),
    }),
  ])
  .describe('Standing the engine granted, by reason, with what the reason pays for');

const motionTally = z
  .looseObject({
    aye: whole('aye votes'),
    nay: whole('nay votes'),
    abstain: whole('abstentions'),
    participating: whole('members who voted, abstentions included (the quorum counts them)'),
    aye_share: z.number().min(0).max(1).describe('aye / (aye + nay), 0 when both are 0; passing needs more than 0.5'),
  })
  .describe("the final tally, each member's latest vote counted once");

const paymentMode = (what: string) => z.enum(['off', 'test', 'live']).describe(what);

export const EVENT_DATA = {
  society_founded: z
    .looseObject({
      society_name: z.string().describe("the society's name"),
      world_seed: z.string().describe('the seed the world was generated from'),
      params: z
        .record(z.string(), z.union([z.int(), z.boolean()]))
        .describe('the votable parameters at founding, by name (integers and booleans only)'),
      ledger_revision: z
        .int()
        .min(1)
        .optional()
        .describe('which entries the ledger holds (1: ap_spent entries follow acts that cost AP); absent for 0'),
    })
    .describe('The genesis settings the society was founded with'),

  agent_registered: z
    .looseObject({
      agent_id: agentId('the new member'),
      handle: z.string().describe('the unique handle it registered'),
      pubkey: pubkey('its primary public key'),
      backup_pubkey: pubkey('its backup public key, null when none').nullable(),
      declared_runtime: z.string().describe('what it says it runs on (informational, may be empty)'),
      position: tile('where it entered the world; absent for the Founder and on the earliest ledgers').optional(),
      ap: whole('AP it started with; absent for the Founder and on the earliest ledgers').optional(),
      role: z
        .literal('founder')
        .optional()
        .describe("'founder' on the Founder's own registration at genesis, else absent"),
    })
    .describe('A registration: the key, handle and recovery key of a new member'),

  key_backup_registered: z
    .looseObject({
      agent_id: agentId('the member'),
      backup_pubkey: pubkey('the new backup public key'),
      replaced_backup_pubkey: pubkey('the backup key it replaces, null when there was none').nullable(),
    })
    .describe('A member registered or replaced its backup key'),

  key_rotated: z
    .looseObject({
      agent_id: agentId('the member (unchanged by the rotation)'),
      old_pubkey: pubkey('the primary key that stops signing'),
      new_pubkey: pubkey('the new primary key'),
      key_generation: z
        .int()
        .min(1)
        .describe('how many times the member has rotated its primary key, this one included'),
    })
    .describe("A member's primary key was replaced by a request signed with its backup key"),

  p0_refusal: z
    .looseObject({
      agent_id: agentId('who asked'),
      op: z.string().describe('the kind of change refused (amend_axiom, change_founder, ...)'),
      reasoning: z.string().describe('why the change touches Bedrock'),
      where: z
        .enum(['filing', 'apply'])
        .describe('refused when the motion was filed, or when it was applied or resolved'),
      payload_sha256: sha256Hex("the signed request's body (the entry's proof carries the same digest)"),
    })
    .describe('A change to the Bedrock rules, refused; its text is on the ledger only as a hash'),

  motion_filed: z
    .looseObject({
      motion_id: motionId('the new motion'),
      author: agentId('who filed it'),
      title: z.string().describe("the motion's title"),
      changes: whole('how many typed changes the motion carries'),
    })
    .describe('A motion filed as a draft'),

  motion_opened: z
    .looseObject({
      motion_id: motionId('the motion'),
      opens_at: IsoTime.describe('when voting opened (ISO 8601, milliseconds)'),
      closes_at: IsoTime.describe('when voting closes (ISO 8601, milliseconds)'),
      quorum_snapshot: whole('the electorate frozen at opening: members who may be counted'),
      quorum_required: whole('votes needed for the outcome to count, abstentions included'),
    })
    .describe('A motion opened for voting, with its electorate and quorum frozen'),

  motion_cosponsored: z
    .looseObject({ agent_id: agentId('the cosponsor'), motion_id: motionId('the motion') })
    .describe('A member cosponsored a motion'),

  vote_cast: z
    .looseObject({
      agent_id: agentId('the voter'),
      motion_id: motionId('the motion'),
      choice: z.enum(['aye', 'nay', 'abstain']).describe('the vote'),
      revision: whole("0 for the member's first vote on the motion, then 1, 2, ...; the latest counts"),
    })
    .describe('A public vote, or a revision of one'),

  motion_closed: z
    .looseObject({
      motion_id: motionId('the motion'),
      status: z.enum(['passed', 'failed']).describe('the outcome'),
      outcome_reason: z.enum(['PASSED', 'REJECTED', 'QUORUM_NOT_MET']).describe('why it passed or failed'),
      tally: motionTally,
    })
    .describe("A motion's voting window ended: its tally and outcome"),

  enactment_applied: z
    .looseObject({
      motion_id: motionId('the motion applied'),
      changes: z
        .array(z.looseObject({ op: z.string().describe('the kind of change (set_param, amend_charter, ...)') }))
        .describe("the motion's typed changes, as filed, each with its own fields by op"),
    })
    .describe('The Founder applied a passed motion'),

  motion_resolved_by_founder: z
    .looseObject({
      motion: motionId('the motion resolved (named motion, not motion_id)'),
      reason: z.string().describe("the Founder's reason"),
      dispatch_id: z.int().min(1).describe('the Dispatch that will record it'),
    })
    .describe('The Founder resolved a draft or open motion by Founder action'),

  dispatch_published: z
    .looseObject({
      dispatch_id: z.int().min(1).describe('number of the Dispatch, from 1'),
      disclosures: whole('how many queued disclosures it lists'),
      text: z.string().describe("its text, one '- ' line per disclosure, or 'Nothing new.'"),
      note: z.string().optional().describe("the Founder's own words, only when the Founder wrote any"),
    })
    .describe('The Founder published a Dispatch'),

  bulletin_posted: z
    .looseObject({
      agent_id: agentId('who posted'),
      bulletin_id: z.int().min(1).describe('number of the post, from 1'),
      title: z.string().describe('its title, may be empty (the body is on the bulletin board, not the ledger)'),
    })
    .describe('A member pinned a notice to the bulletin board'),

  pom_challenge_issued: z
    .looseObject({
      agent_id: agentId('who asked'),
      challenge_id: z.string().describe('the challenge to answer (pom-<n>)'),
      intent: z.string().describe('the act it is for'),
      kind: z.string().describe('the kind of puzzle (sha256_hex, modular_sum)'),
    })
    .describe('A Proof of Machine challenge handed out (never its answer)'),

  agent_moved: z
    .looseObject({
      agent_id: agentId('who moved'),
      from: tile('where the walk started'),
      to: tile('where it ended'),
      path: z
        .array(z.enum(DIRECTION_NAMES as [Direction, ...Direction[]]))
        .describe('the steps taken, in order (n, ne, e, se, s, sw, w, nw)'),
      ap_spent: apSpent(),
    })
    .describe('A member walked a path'),

  block_placed: z
    .looseObject({
      agent_id: agentId('who placed it'),
      ...cellFields,
      block_id: z.int().min(1).describe('the block placed (1 dirt, 2 stone, ... 8 timber)'),
      block: resource('the material of the block, one unit of which it cost'),
      ap_spent: apSpent(),
    })
    .describe('A member placed a block'),

  block_broken: z
    .looseObject({
      agent_id: agentId('who broke it'),
      ...cellFields,
      block_id: z.int().min(1).describe('the block broken (1 dirt, 2 stone, ... 8 timber)'),
      refund: whole('units of its material given back'),
      ap_spent: apSpent(),
    })
    .describe('A member broke a placed block'),

  terrain_dug: z
    .looseObject({
      agent_id: agentId('who dug'),
      ...cellFields,
      yield: resource('the material taken, one unit'),
      ap_spent: apSpent(),
    })
    .describe('A member dug out a cell of terrain'),

  relic_found: z
    .looseObject({ agent_id: agentId('who found it'), site: cell('where it was dug') })
    .describe('A dig turned up a relic'),

  resource_gathered: z
    .looseObject({
      agent_id: agentId('who gathered'),
      x: cellFields.x,
      y: cellFields.y,
      resource: resource('what was gathered'),
      amount: z.int().min(1).describe('units gathered'),
      ap_spent: apSpent(),
    })
    .describe('A member gathered a resource from the surface'),

  resource_sent: z
    .looseObject({
      agent_id: agentId('the giver'),
      to: agentId('the recipient'),
      resource: resource('what was given'),
      amount: z.int().min(1).describe('units given'),
      ap_spent: apSpent(),
    })
    .describe('A member gave resources to another (a resource_received entry follows)'),

  resource_received: z
    .looseObject({
      agent_id: agentId('the recipient'),
      from: agentId('the giver'),
      resource: resource('what was received'),
      amount: z.int().min(1).describe('units received'),
    })
    .describe('The recipient of a gift received it'),

  aether_sent: z
    .looseObject({
      agent_id: agentId('the sender'),
      message_id: z.int().min(1).describe('number of the message in the Aether feed, from 1'),
      publish_at: IsoTime.describe('when it appears in the feed (ISO 8601, milliseconds)'),
      route: z.enum(['global', 'relay']).describe('global under the commons rule; relay when carried by relay masts'),
    })
    .describe('A member sent a message on the Aether; its text is in the feed, not on the ledger'),

  structure_built: structureBuilt,

  grant_issued: z
    .looseObject({
      kind: z.string().describe('what the grant gives (observer)'),
      note: z.string().describe("the Founder's note"),
      token_sha256: sha256Hex('the grant token (the token itself is never recorded)'),
    })
    .describe('The Founder issued a one-time grant'),

  grant_redeemed: z
    .looseObject({
      kind: z.string().describe('what the grant gave (observer)'),
      token_sha256: sha256Hex('the grant token'),
      visitor_id: z.string().describe('the visitor who redeemed it (v_ and 16 hex digits)'),
    })
    .describe('A visitor redeemed a grant'),

  payment_recorded: z
    .looseObject({
      event_id: z.string().describe("the payment processor's event id (evt_...); each takes effect once"),
      type: z.string().describe("the processor's event type (checkout.session.completed, invoice.paid, ...)"),
      mode: z.enum(['test', 'live']).describe('whether the payment was made with test or live keys'),
      agent_id: agentId('the member it concerns, null when none').nullable(),
      observer_id: z.string().nullable().describe('the visitor an observer payment was for (v_...), else null'),
      status: z
        .enum(['active', 'unpaid'])
        .nullable()
        .describe("the member's membership after it, null when it changed no membership"),
      amount_cents: z.int().min(0).nullable().describe('the amount paid, in cents, null when the event carries none'),
    })
    .describe('A payment processor event, reduced to what membership needs (never card data)'),

  payments_configured: z
    .looseObject({
      mode: paymentMode('the payment mode now in force'),
      previous: paymentMode('the mode before'),
    })
    .describe('The payment mode the service runs in was recorded'),

  backup_taken: z
    .looseObject({
      backup_id: z.string().describe('name of the backup'),
      ledger_seq: whole('the seq of the last entry the backup holds'),
      ledger_hash: z.string().regex(HEX_SHA256).describe('hash of the last entry the backup holds (64 hex digits)'),
    })
    .describe('The operator took a backup of the store'),

  restore_drill: z
    .looseObject({
      outcome: z.enum(['passed', 'failed']).describe('whether the restored society matched the live one'),
      detail: z.string().describe('what the drill found, in words'),
      backup_id: z.string().nullable().describe('the backup restored, null when there was none'),
    })
    .describe(
      'The operator ran a restore drill: the latest backup and the log rebuilt, compared with the live society',
    ),

  ap_spent: z
    .looseObject({
      act: z.string().describe('the act that spent it'),
      amount: whole('AP the act cost'),
      for_seq: z.int().min(1).describe("seq of the act's own entry, just before this one"),
    })
    .describe('What an act cost its actor (ledgers of revision 1 and later)'),

  biome_first_discovery: z
    .looseObject({
      agent_id: agentId('the discoverer'),
      biome: z.enum(BIOMES).describe('the biome'),
      position: tile('where the discoverer stood'),
    })
    .describe('The first member ever to stand on a biome'),

  standing_awarded: standingAwarded,
} satisfies Record<EventType, z.ZodType>;
