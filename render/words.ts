/*
 * The words every page shares, so one page never says "1 votes" while another says
 * "1 vote", and a code the engine keeps ("QUORUM_NOT_MET") reads the same everywhere.
 */

/** "1 vote", "2 votes"; a noun that does not take an s names its plural. */
export function plural(count: number, singular: string, plural_form = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural_form}`;
}

/** Why a motion closed as it did, in words; the engine's codes (engine/acts/motion_close.ts). */
const OUTCOME_WORDS: Readonly<Record<string, string>> = {
  PASSED: 'a quorum voted and more said aye than nay',
  REJECTED: 'a quorum voted but no more said aye than nay',
  QUORUM_NOT_MET: 'too few members voted',
};

const FOUNDER_RESOLUTION = 'resolved by founder action: ';

/**
 * A motion's outcome as a reader says it, and the code beside it for the curious (or null
 * when the words are the engine's own: a Founder's resolution carries its reason as text).
 */
export function outcomeWords(reason: string): { words: string; code: string | null } {
  if (Object.hasOwn(OUTCOME_WORDS, reason)) return { words: OUTCOME_WORDS[reason]!, code: reason };
  if (reason.startsWith(FOUNDER_RESOLUTION))
    return { words: `the Founder resolved it: ${reason.slice(FOUNDER_RESOLUTION.length)}`, code: null };
  return { words: reason, code: null };
}

/** What a member left without a title is called on the pages (never an empty pair of quotes). */
export const UNTITLED = 'untitled';

/** A member's title, or the word for none. */
export function titleOr(title: string, none = UNTITLED): string {
  return title.trim() === '' ? none : title;
}
