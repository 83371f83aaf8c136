import { z } from 'zod';
import { multiLineText, oneLineText } from '../text.js';
import { refuse, type Refusal } from '../refusals.js';
import { ParamsSchema, type Params } from '../params.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';
import { currentCharter } from './governance_state.js';
import { isStorableKey, ownValue } from '../keyed.js';

const id = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and -, up to 40')
    .describe(`${what}: letters, digits, _ and -, 1 to 40 characters.`);
const text = (what: string) =>
  multiLineText(4000).min(1).describe(`${what}: 1 to 4000 characters, lines separated by \\n.`);
const op = <Name extends string>(name: Name, does: string) => z.literal(name).describe(`${name}: ${does}.`);

/**
 * The names set_param may name, from the params table. They are offered as the schema's
 * enum so a model sees them; the parse stays a string, so an unknown name is the act's
 * 409 INVALID_CHANGE naming it, as before, and a motion of a retired parameter still reads.
 */
const PARAM_NAMES = Object.keys(ParamsSchema.shape);
const paramName = oneLineText(64).min(1).meta({
  description:
    'The parameter to set, one of the names of GET /api/v1/world/params and the governance parameters (any other name is refused 409 INVALID_CHANGE).',
  enum: PARAM_NAMES,
});

/**
 * The typed operations a motion can carry. Each names what it touches; the last four
 * exist so that a member can file them and see them refused at the Bedrock boundary
 * with a clear reason, rather than as an unknown shape.
 */
export const ChangeSchema = z.discriminatedUnion('op', [
  z.strictObject({
    op: op('set_param', 'sets one votable parameter'),
    name: paramName,
    value: z
      .union([z.int(), z.boolean()])
      .describe("The parameter's new value: an integer or a boolean, within the parameter's own range."),
  }),
  z.strictObject({
    op: op('amend_charter', 'adds a charter article or replaces the one with its article_id'),
    article_id: id('The article id (A<digits> are axioms, which are Bedrock)'),
    title: oneLineText(200).min(1).describe("The article's title: one line, 1 to 200 characters."),
    text: text("The article's text"),
  }),
  z.strictObject({
    op: op('add_prohibition', 'adds a prohibition'),
    prohibition_id: id('A new prohibition id (P0 is Bedrock)'),
    text: text('What is prohibited'),
  }),
  z.strictObject({
    op: op('remove_prohibition', 'removes a prohibition'),
    prohibition_id: id('The id of a prohibition in force'),
  }),
  z.strictObject({
    op: op('enable_module', 'enables a module by name'),
    module_id: id('The module id'),
    description: multiLineText(2000).default('').describe('What the module does: up to 2000 characters.'),
  }),
  z.strictObject({
    op: op('retire_module', 'retires an enabled module'),
    module_id: id('The id of an enabled module'),
  }),
  z.strictObject({
    op: op('amend_axiom', 'changes an axiom; always refused, axioms are Bedrock'),
    article_id: id('The axiom id'),
    text: text("The axiom's new text"),
  }),
  z.strictObject({
    op: op('change_ledger_recipe', 'changes how ledger entries are hashed; always refused, it is Bedrock'),
    recipe: text('The new recipe'),
  }),
  z.strictObject({
    op: op('change_identity', "changes what an agent's key owns; always refused, identity is Bedrock"),
    agent_id: oneLineText(64).describe('The agent id concerned'),
    detail: multiLineText(2000).default('').describe('What would change: up to 2000 characters.'),
  }),
  z.strictObject({
    op: op('change_founder', 'changes the Founder; always refused, the Founder role is Bedrock'),
    founder_pubkey: oneLineText(64).describe("The new Founder's public key"),
  }),
]);

export type Change = z.output<typeof ChangeSchema>;

/** Why a change touches Bedrock, or undefined for a Domain change. */
export function bedrockReason(change: Change): string | undefined {
  switch (change.op) {
    case 'amend_axiom':
      return `${change.article_id} is an axiom; axioms are Bedrock`;
    case 'change_ledger_recipe':
      return 'the ledger recipe is Bedrock';
    case 'change_identity':
      return 'identity is Bedrock: only a key (or its backup) changes what it owns';
    case 'change_founder':
      return 'the Founder role is Bedrock';
    case 'amend_charter':
      return /^A\d+$/.test(change.article_id) ? `${change.article_id} is an axiom; axioms are Bedrock` : undefined;
    case 'remove_prohibition':
    case 'add_prohibition':
      return change.prohibition_id === 'P0' ? 'P0 guards Bedrock and is itself Bedrock' : undefined;
    default:
      return undefined;
  }
}

/** Checks a Domain change against the state as it is; the first problem is the refusal. */
export function invalidChange(state: SocietyState, change: Change): Refusal | undefined {
  const governance = state.governance;
  switch (change.op) {
    case 'set_param': {
      const shape = ParamsSchema.shape as Record<string, z.ZodType>;
      if (!Object.hasOwn(shape, change.name))
        return refuse('INVALID_CHANGE', `There is no parameter '${change.name}'.`, { op: change.op });
      const checked = shape[change.name]!.safeParse(change.value);
      if (!checked.success)
        return refuse(
          'INVALID_CHANGE',
          `${change.value} is not a valid value for ${change.name}: ${checked.error.issues[0]?.message}`,
          { op: change.op },
        );
      return undefined;
    }
    case 'remove_prohibition':
      return governance.prohibitions.some((p) => p.prohibition_id === change.prohibition_id)
        ? undefined
        : refuse('INVALID_CHANGE', `There is no prohibition ${change.prohibition_id}.`);
    case 'add_prohibition':
      return governance.prohibitions.some((p) => p.prohibition_id === change.prohibition_id)
        ? refuse('INVALID_CHANGE', `Prohibition ${change.prohibition_id} exists already.`)
        : undefined;
    case 'enable_module':
      if (!isStorableKey(change.module_id))
        return refuse('INVALID_CHANGE', `${change.module_id} cannot name a module.`);
      return ownValue(governance.modules, change.module_id)?.status === 'enabled'
        ? refuse('INVALID_CHANGE', `Module ${change.module_id} is enabled already.`)
        : undefined;
    case 'retire_module':
      return ownValue(governance.modules, change.module_id)?.status === 'enabled'
        ? undefined
        : refuse('INVALID_CHANGE', `Module ${change.module_id} is not enabled.`);
    default:
      return undefined;
  }
}

/** Validates every change first, then applies them all: a motion is enacted whole or not at all. */
export function checkChanges(state: SocietyState, changes: Change[]): Refusal | undefined {
  for (const change of changes) {
    const problem = invalidChange(state, change);
    if (problem) return problem;
  }
  return undefined;
}

export function applyChanges(state: SocietyState, changes: Change[], motion_id: string, at_ms: EpochMs): void {
  const governance = state.governance;
  for (const change of changes) {
    switch (change.op) {
      case 'set_param':
        (state.params as Record<string, unknown>)[change.name] = change.value as Params[keyof Params];
        break;
      case 'amend_charter': {
        const current = currentCharter(governance);
        const articles = current.articles.filter((article) => article.article_id !== change.article_id);
        articles.push({ article_id: change.article_id, title: change.title, text: change.text, namespace: 'domain' });
        governance.charter.push({ version: current.version + 1, adopted_at_ms: at_ms, by_motion: motion_id, articles });
        break;
      }
      case 'add_prohibition':
        governance.prohibitions.push({ prohibition_id: change.prohibition_id, text: change.text, namespace: 'domain' });
        break;
      case 'remove_prohibition':
        governance.prohibitions = governance.prohibitions.filter((p) => p.prohibition_id !== change.prohibition_id);
        break;
      case 'enable_module':
        governance.modules[change.module_id] = {
          module_id: change.module_id,
          description: change.description,
          status: 'enabled',
          enabled_at_ms: at_ms,
          retired_at_ms: null,
          by_motion: motion_id,
        };
        break;
      case 'retire_module': {
        const module = ownValue(governance.modules, change.module_id)!;
        module.status = 'retired';
        module.retired_at_ms = at_ms;
        break;
      }
      default:
        throw new Error(`a Bedrock change reached apply: ${change.op}`);
    }
  }
}
