/**
 * The `data` of every ledger event type, as a zod schema a client can read in the
 * OpenAPI document. Objects are loose: docs/protocol.md promises that an event's data
 * may gain fields without a new API version. A field is required only where every
 * version of the engine since the event existed wrote it, so that old ledgers still
 * validate; the emit sites (engine/acts/, engine/world/, engine/governance/, apply.ts)
 * are the source of truth.
 */
import { z } from 'zod';
import {
  agentId,
  pubkey,
  HEX_SHA256,
  sha256Hex,
  whole,
  tile,
  motionId,
  structureBuilt,
  standingAwarded,
  motionTally,
  paymentMode,
} from './event_data_fields.js';
import { IsoTime } from '../read.js';
import { BIOMES } from '../world/materials.js';
import type { EventType } from './event_catalogue.js';
import { WORLD_EVENT_DATA } from './world_event_data.js';

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

  ...WORLD_EVENT_DATA,

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
