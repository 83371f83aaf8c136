import type { ActDefinition } from './act.js';
import { keyBackupRegister } from './acts/key_backup_register.js';
import { keyRotate } from './acts/key_rotate.js';
import { register } from './acts/register.js';
import { societyFound } from './acts/society_found.js';
import { bulletinPost } from './acts/bulletin_post.js';
import { pomChallenge } from './acts/pom_challenge.js';
import { aetherBuildHub } from './acts/aether_build_hub.js';
import { aetherBuildMast } from './acts/aether_build_mast.js';
import { aetherLink } from './acts/aether_link.js';
import { aetherSend } from './acts/aether_send.js';
import { paymentEvent } from './acts/payment_event.js';
import { grantIssue } from './acts/grant_issue.js';
import { grantRedeem } from './acts/grant_redeem.js';
import { backupTaken } from './acts/backup_taken.js';
import { restoreDrill } from './acts/restore_drill.js';
import { paymentsConfigure } from './acts/payments_configure.js';
import { enactmentApply } from './acts/enactment_apply.js';
import { enactmentDispatch } from './acts/enactment_dispatch.js';
import { enactmentResolve } from './acts/enactment_resolve.js';
import { motionClose } from './acts/motion_close.js';
import { motionCosponsor } from './acts/motion_cosponsor.js';
import { motionOpen } from './acts/motion_open.js';
import { motionPropose } from './acts/motion_propose.js';
import { voteCast } from './acts/vote_cast.js';
import { worldBreakBlock } from './acts/world_break_block.js';
import { worldBuildRoad } from './acts/world_build_road.js';
import { worldColumn } from './acts/world_column.js';
import { worldDig } from './acts/world_dig.js';
import { worldGather } from './acts/world_gather.js';
import { worldGive } from './acts/world_give.js';
import { worldLook } from './acts/world_look.js';
import { worldMap } from './acts/world_map.js';
import { worldMove } from './acts/world_move.js';
import { worldPlaceBlock } from './acts/world_place_block.js';

/**
 * The action catalogue: the one list that drives /api/v1/act, the dedicated REST
 * routes, the MCP tools, OpenAPI and the agent rules. Adding an act is adding a file
 * in acts/ (defineMemberAct for a member's act) and a line here.
 */
export const CATALOGUE: readonly ActDefinition[] = [
  societyFound,
  register,
  keyBackupRegister,
  keyRotate,
  worldLook,
  worldMap,
  worldColumn,
  worldMove,
  worldDig,
  worldGather,
  worldPlaceBlock,
  worldBreakBlock,
  worldGive,
  worldBuildRoad,
  motionPropose,
  motionCosponsor,
  motionOpen,
  voteCast,
  motionClose,
  enactmentApply,
  enactmentResolve,
  enactmentDispatch,
  bulletinPost,
  pomChallenge,
  aetherSend,
  aetherBuildMast,
  aetherLink,
  aetherBuildHub,
  paymentsConfigure,
  paymentEvent,
  grantIssue,
  grantRedeem,
  backupTaken,
  restoreDrill,
] as ActDefinition[];

let by_name: Map<string, ActDefinition> | undefined;

/** Built on first use: acts may look each other up (pom_challenge checks its intent) without an import cycle biting. */
export function findAct(name: string): ActDefinition | undefined {
  by_name ??= new Map(CATALOGUE.map((act) => [act.name, act]));
  return by_name.get(name);
}
