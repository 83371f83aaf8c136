import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { findAct } from '../engine/catalogue.js';
import { ChangeSchema } from '../engine/governance/changes.js';
import { GenesisSchema } from '../engine/genesis.js';
import { codePointLength, textAtMost } from '../engine/text.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, refusal, type Member } from './helpers/world.js';

/**
 * One rule for lengths (docs/protocol.md#lengths): every length limit on text counts
 * Unicode code points. '😀' is one code point, two UTF-16 units and four UTF-8 bytes, so a
 * limit counted in units would refuse max of them and one counted in bytes max / 4.
 */
const ASTRAL = '😀';
const astral = (count: number) => ASTRAL.repeat(count);

/** Whether the schema found fault with the field at path, the rest of the value aside. */
function faultAt(schema: z.ZodType, value: unknown, path: readonly (string | number)[]): boolean {
  const parsed = schema.safeParse(value);
  if (parsed.success) return false;
  return parsed.error.issues.some((issue) => JSON.stringify(issue.path) === JSON.stringify(path));
}

function payloadOf(act: string): z.ZodType {
  const found = findAct(act);
  if (!found) throw new Error(`no act ${act}`);
  return found.payload as z.ZodType;
}

interface Limit {
  name: string;
  schema: () => z.ZodType;
  max: number;
  /** The whole value with the field's text in it. */
  value: (text: string) => unknown;
  path: readonly (string | number)[];
  /** What fills the field (astral unless the field's pattern allows only ASCII). */
  fill?: (count: number) => string;
}

const change = (op: Record<string, unknown>) => ({ title: 't', body: '', changes: [op] });

const LIMITS: Limit[] = [
  {
    name: 'register handle (ASCII by its pattern)',
    schema: () => payloadOf('register'),
    max: 32,
    value: (handle) => ({ pubkey: 'x', handle }),
    path: ['handle'],
    fill: (count) => 'a'.repeat(count),
  },
  {
    name: 'register declared_runtime',
    schema: () => payloadOf('register'),
    max: 200,
    value: (text) => ({ declared_runtime: text }),
    path: ['declared_runtime'],
  },
  {
    name: 'motion_propose title',
    schema: () => payloadOf('motion_propose'),
    max: 200,
    value: (title) => ({ title, body: '', changes: [] }),
    path: ['title'],
  },
  {
    name: 'motion_propose body',
    schema: () => payloadOf('motion_propose'),
    max: 20_000,
    value: (body) => ({ title: 't', body, changes: [] }),
    path: ['body'],
  },
  {
    name: 'change set_param name',
    schema: () => payloadOf('motion_propose'),
    max: 64,
    value: (name) => change({ op: 'set_param', name, value: 1 }),
    path: ['changes', 0, 'name'],
  },
  {
    name: 'change amend_charter title',
    schema: () => payloadOf('motion_propose'),
    max: 200,
    value: (title) => change({ op: 'amend_charter', article_id: 'a', title, text: 'x' }),
    path: ['changes', 0, 'title'],
  },
  {
    name: 'change amend_charter text',
    schema: () => payloadOf('motion_propose'),
    max: 4000,
    value: (text) => change({ op: 'amend_charter', article_id: 'a', title: 't', text }),
    path: ['changes', 0, 'text'],
  },
  {
    name: 'change enable_module description',
    schema: () => ChangeSchema,
    max: 2000,
    value: (description) => ({ op: 'enable_module', module_id: 'm', description }),
    path: ['description'],
  },
  {
    name: 'change change_identity agent_id',
    schema: () => ChangeSchema,
    max: 64,
    value: (agent_id) => ({ op: 'change_identity', agent_id }),
    path: ['agent_id'],
  },
  {
    name: 'change change_identity detail',
    schema: () => ChangeSchema,
    max: 2000,
    value: (detail) => ({ op: 'change_identity', agent_id: 'a', detail }),
    path: ['detail'],
  },
  {
    name: 'change change_founder founder_pubkey',
    schema: () => ChangeSchema,
    max: 64,
    value: (founder_pubkey) => ({ op: 'change_founder', founder_pubkey }),
    path: ['founder_pubkey'],
  },
  {
    name: 'bulletin_post title',
    schema: () => payloadOf('bulletin_post'),
    max: 200,
    value: (title) => ({ title, body: 'b' }),
    path: ['title'],
  },
  {
    name: 'bulletin_post body',
    schema: () => payloadOf('bulletin_post'),
    max: 2000,
    value: (body) => ({ body }),
    path: ['body'],
  },
  {
    name: "enactment_dispatch note (the Founder's words)",
    schema: () => payloadOf('enactment_dispatch'),
    max: 2000,
    value: (note) => ({ note }),
    path: ['note'],
  },
  {
    name: 'aether_send body (the schema; aether_body_chars_max below)',
    schema: () => payloadOf('aether_send'),
    max: 4000,
    value: (body) => ({ body }),
    path: ['body'],
  },
  {
    name: 'enactment_resolve reason',
    schema: () => payloadOf('enactment_resolve'),
    max: 2000,
    value: (reason) => ({ motion_id: 'M-0001-abcd', reason }),
    path: ['reason'],
  },
  {
    name: 'grant_issue note',
    schema: () => payloadOf('grant_issue'),
    max: 500,
    value: (note) => ({ note }),
    path: ['note'],
  },
  {
    name: 'pom_challenge intent',
    schema: () => payloadOf('pom_challenge'),
    max: 64,
    value: (intent) => ({ intent }),
    path: ['intent'],
  },
  {
    name: 'backup_taken backup_id (engine only)',
    schema: () => payloadOf('backup_taken'),
    max: 100,
    value: (backup_id) => ({ backup_id }),
    path: ['backup_id'],
  },
  {
    name: 'restore_drill detail (engine only)',
    schema: () => payloadOf('restore_drill'),
    max: 2000,
    value: (detail) => ({ detail }),
    path: ['detail'],
  },
  {
    name: 'restore_drill backup_id (engine only)',
    schema: () => payloadOf('restore_drill'),
    max: 100,
    value: (backup_id) => ({ backup_id }),
    path: ['backup_id'],
  },
  {
    name: 'payment_event subscription_status (engine only)',
    schema: () => payloadOf('payment_event'),
    max: 255,
    value: (subscription_status) => ({ subscription_status }),
    path: ['subscription_status'],
  },
  {
    name: 'genesis society_name',
    schema: () => GenesisSchema,
    max: 64,
    value: (society_name) => ({ society_name }),
    path: ['society_name'],
  },
  {
    name: 'genesis world_seed',
    schema: () => GenesisSchema,
    max: 128,
    value: (world_seed) => ({ world_seed }),
    path: ['world_seed'],
  },
];

describe('every length limit on text counts code points', () => {
  it('counts a code point once, whatever its UTF-16 units', () => {
    expect([codePointLength(''), codePointLength('abc'), codePointLength(astral(3)), codePointLength('a😀b')]).toEqual([
      0, 3, 3, 3,
    ]);
    // A lone surrogate (which a request cannot carry) counts as one.
    expect(codePointLength('\ud83d')).toBe(1);
    expect(textAtMost(2).safeParse(astral(2)).success).toBe(true);
    expect(textAtMost(2).safeParse(astral(3)).error?.issues[0]).toMatchObject({ code: 'too_big', maximum: 2 });
  });

  for (const limit of LIMITS) {
    it(`${limit.name}: ${limit.max} accepted, ${limit.max + 1} refused`, () => {
      const fill = limit.fill ?? astral;
      const schema = limit.schema();
      expect(faultAt(schema, limit.value(fill(limit.max)), limit.path)).toBe(false);
      expect(faultAt(schema, limit.value(fill(limit.max + 1)), limit.path)).toBe(true);
    });
  }
});

describe('lengths over HTTP', () => {
  let society: TestSociety;
  let ann: Member;

  beforeAll(async () => {
    society = await startTestSociety({
      genesis: { world_seed: 'world-tests', params: { ap_at_registration: 300 } },
    });
    ann = await join(society, 'ann');
  });
  afterAll(() => society.destroy());
  afterEach(() => expect(society.bugs).toEqual([]));

  it('holds an Aether message to aether_body_chars_max code points', async () => {
    const max = society.engine.state.params.aether_body_chars_max;
    const send = (body: string) => ann.client.act<any>('aether_send', { body, scope: 'auto', route: 'global' });
    const sent = await send(astral(max));
    expect(sent.result).toMatchObject({ message_id: expect.any(Number) });
    const refused = await refusal(send(astral(max + 1)));
    expect([refused.status, refused.code]).toEqual([409, 'MESSAGE_TOO_LONG']);
    expect(refused.message).toContain(`this one has ${max + 1}`);
  });

  it('holds a motion title to 200 code points', async () => {
    const propose = (title: string) => ann.client.act<any>('motion_propose', { title, body: '', changes: [] });
    const filed = await propose(astral(200));
    expect(filed.result).toMatchObject({ motion_id: expect.any(String) });
    const refused = await refusal(propose(astral(201)));
    expect([refused.status, refused.code]).toEqual([422, 'VALIDATION_FAILED']);
  });
});
