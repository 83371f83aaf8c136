import { z } from 'zod';
import { currentCharter, type CharterVersion } from '../governance/governance_state.js';
import { FOUNDER_CONDUCT } from '../governance/law.js';
import { defineRead, IsoTime } from '../read.js';
import { refuse } from '../refusals.js';
import { isoAt } from '../time.js';

const NamespaceSchema = z.enum(['bedrock', 'domain']);

const ArticleSchema = z.object({
  article_id: z.string(),
  title: z.string(),
  text: z.string(),
  namespace: NamespaceSchema,
});

const ProhibitionSchema = z.object({ prohibition_id: z.string(), text: z.string(), namespace: NamespaceSchema });

export const CharterSchema = z.object({
  version: z.int(),
  adopted_at: IsoTime,
  by_motion: z.string().nullable(),
  articles: z.array(ArticleSchema),
});

function charterView(charter: CharterVersion) {
  const { version, adopted_at_ms, by_motion, articles } = charter;
  return { version, adopted_at: isoAt(adopted_at_ms), by_motion, articles };
}

export const charterRead = defineRead({
  name: 'charter_read',
  title: 'Charter',
  summary: 'The charter in force: its version, when and by which motion it was adopted, and every article.',
  path: '/charter.json',
  args: z.object({}),
  response: { kind: 'json', schema: CharterSchema },
  view: ({ state }) => charterView(currentCharter(state.governance)),
});

export const charterVersionRead = defineRead({
  name: 'charter_version_read',
  title: 'Charter version',
  summary: 'The charter as it stood at one version (1 is the founding charter); every version stays readable.',
  path: '/charter/v{version}.json',
  args: z.object({ version: z.int().min(1).describe('A charter version, 1 to the current one') }),
  response: { kind: 'json', schema: CharterSchema },
  refusals: ['NOT_FOUND'],
  // A superseded version never changes again.
  immutable: ({ state }, { version }) => version < currentCharter(state.governance).version,
  view: ({ state }, { version }) => {
    const charter = state.governance.charter[version - 1];
    if (charter) return charterView(charter);
    const current = currentCharter(state.governance).version;
    return refuse('NOT_FOUND', `There is no charter version ${version}; the current one is ${current}.`);
  },
});

export const prohibitionsList = defineRead({
  name: 'prohibitions_list',
  title: 'Prohibitions',
  summary: 'The prohibitions in force, P0 (Bedrock) first; a motion may add Domain ones.',
  path: '/prohibitions.json',
  args: z.object({}),
  response: { kind: 'json', schema: z.object({ prohibitions: z.array(ProhibitionSchema) }) },
  view: ({ state }) => ({ prohibitions: state.governance.prohibitions }),
});

export const p0RefusalList = defineRead({
  name: 'p0_refusal_list',
  title: 'P0 refusals',
  summary: 'Every act refused for touching Bedrock: who, where, which op, why, and the SHA-256 of what was signed.',
  path: '/prohibitions/p0',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({
      refusals: z.array(
        z.object({
          agent_id: z.string(),
          where: z.enum(['filing', 'apply']),
          op: z.string(),
          reasoning: z.string(),
          payload_sha256: z.string(),
          at: IsoTime,
        }),
      ),
    }),
  },
  view: ({ state }) => ({
    refusals: state.governance.p0.map(({ at_ms, ...record }) => ({ ...record, at: isoAt(at_ms) })),
  }),
});

const ConductSchema = z.object({ will: z.array(z.string()), will_not: z.array(z.string()), how: z.string() });

export const founderConduct = defineRead({
  name: 'founder_conduct',
  title: 'Founder conduct',
  summary: 'What the Founder will and will not enact, for Bedrock and for Domain, and how.',
  path: '/api/v1/founder-conduct',
  aliases: ['/founder-conduct'],
  args: z.object({}),
  response: { kind: 'json', schema: z.object({ bedrock: ConductSchema, domain: ConductSchema }) },
  view: () => FOUNDER_CONDUCT,
});
