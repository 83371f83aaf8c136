import type {
  CharterView,
  DispatchesView,
  ModuleView,
  MotionsView,
  ProhibitionsView,
} from '../../../render/pages/governance_pages.js';
import type { z } from 'zod';
import {
  currentCharter,
  ownValue,
  type ReadContext,
  motionList,
  isoAt,
  type MotionSchema,
} from '../../../engine/index.js';
import { page_size } from './paging.js';
import { nameOf } from './names.js';

const motions_shown = 200;

// The engine's motion reads answer what their response schemas declare.
type MotionList = { motions: z.output<typeof MotionSchema>[] };

export function charterView({ state }: ReadContext): CharterView {
  const charter = currentCharter(state.governance);
  const { version, by_motion, articles } = charter;
  const modules = Object.values(state.governance.modules).map(({ module_id, status }) => ({ module_id, status }));
  return { version, adopted_at: isoAt(charter.adopted_at_ms), by_motion, articles, modules };
}

export function prohibitionsView({ state }: ReadContext): ProhibitionsView {
  return { prohibitions: state.governance.prohibitions, p0_refusals: state.governance.p0.length };
}

export function moduleView({ state }: ReadContext, { module_id }: { module_id: string }): ModuleView | null {
  const module = ownValue(state.governance.modules, module_id);
  if (!module) return null;
  const { enabled_at_ms, retired_at_ms, ...rest } = module;
  const retired_at = retired_at_ms === null ? null : isoAt(retired_at_ms);
  return { ...rest, enabled_at: isoAt(enabled_at_ms), retired_at };
}

export function motionsView(context: ReadContext, { status }: { status?: MotionsView['status'] }): MotionsView {
  const { motions } = motionList.view(context, { status, limit: motions_shown }) as MotionList;
  return {
    status,
    motions: motions.map((motion) => ({ ...motion, author_handle: nameOf(context.state, motion.author).handle })),
  };
}

export function dispatchesView({ state }: ReadContext, { before_id }: { before_id?: number }): DispatchesView {
  const all = state.governance.dispatches.filter((d) => before_id === undefined || d.dispatch_id < before_id);
  const shown = all.slice(-page_size).reverse();
  return {
    dispatches: shown.map((d) => ({
      dispatch_id: d.dispatch_id,
      at: isoAt(d.at_ms),
      text: d.text,
      ...(d.note === undefined ? {} : { note: d.note }),
    })),
    older: all.length > page_size ? shown.at(-1)!.dispatch_id : null,
  };
}
