import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bridge } from '../client/mcp_bridge.js';
import { CATALOGUE } from '../engine/catalogue.js';
import { ParamsSchema } from '../engine/params.js';
import { bridgeClient, endpointClient } from './helpers/mcp_clients.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

type Schema = Record<string, unknown>;

/** Every schema nested in one: an object's properties, an array's items, a variant of anyOf / oneOf / allOf. */
function* nested(schema: Schema, path: string): Generator<[string, Schema]> {
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    yield [`${path}.${name}`, property];
    yield* nested(property, `${path}.${name}`);
  }
  if (schema.items && typeof schema.items === 'object') yield* nested(schema.items as Schema, `${path}[]`);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'])
    for (const [index, variant] of ((schema[keyword] ?? []) as Schema[]).entries())
      yield* nested(variant, `${path}<${keyword === 'allOf' ? '&' : '|'}${variant_name(variant, index)}>`);
}

/** A variant of a union of changes is named by its `op`, as a reader of the failure would look it up. */
function variant_name(variant: Schema, index: number): string {
  const op = (variant.properties as Record<string, Schema> | undefined)?.op;
  return typeof op?.const === 'string' ? op.const : String(index);
}

const undescribed = (tools: Tool[]) =>
  tools.flatMap((tool) =>
    [...nested(tool.inputSchema as Schema, tool.name)]
      .filter(([, property]) => typeof property.description !== 'string' || property.description.length < 8)
      .map(([path]) => path),
  );

const ACT_TOOLS = new Set(CATALOGUE.filter((act) => act.via_act).map((act) => act.name));

let society: TestSociety;
let bridge: { client: Client; bridge: Bridge };
let endpoint: Client;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'tool-descriptions' } });
  bridge = await bridgeClient(society.url);
  endpoint = await endpointClient(society.url);
});
afterAll(async () => {
  await bridge?.client.close();
  await bridge?.bridge.close();
  await endpoint?.close();
  await society?.destroy();
});

describe('every tool input as a model sees it', () => {
  it('describes every property and nested property of every tool the stdio bridge lists', async () => {
    const { tools } = await bridge.client.listTools();
    expect(tools.length).toBeGreaterThan(40);
    expect(undescribed(tools)).toEqual([]);
  });

  it('describes every property of every tool POST /mcp lists', async () => {
    const { tools } = await endpoint.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(undescribed(tools)).toEqual([]);
  });

  it("says every tile coordinate of an act is absolute, with the world's bounds", async () => {
    const { tools } = await bridge.client.listTools();
    const coordinates = tools
      .filter((tool) => ACT_TOOLS.has(tool.name))
      .flatMap((tool) => [...nested(tool.inputSchema as Schema, tool.name)].filter(([path]) => /\.(x|y)$/.test(path)));
    expect(coordinates.length).toBeGreaterThan(5);
    for (const [path, property] of coordinates) {
      expect(property.description, path).toMatch(/^Absolute tile [xy] in the world, 0 to 2047 \(not relative/);
    }
  });

  it('describes every tool in /.well-known/mcp.json, the bridge-only ones as the bridge does', async () => {
    const descriptor = (await (await fetch(`${society.url}/.well-known/mcp.json`)).json()) as {
      tools: { name: string; description?: string }[];
    };
    const { tools } = await bridge.client.listTools();
    expect(descriptor.tools.map((tool) => tool.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
    expect(descriptor.tools.filter((tool) => !(tool.description && tool.description.length > 10))).toEqual([]);
    const listed = new Map(tools.map((tool) => [tool.name, tool.description]));
    for (const name of ['register', 'membership_status', 'membership_checkout', 'billing_portal', 'wait_for_events'])
      expect(descriptor.tools.find((tool) => tool.name === name)?.description, name).toBe(listed.get(name));
  });

  it('lists the parameter names set_param accepts, from the params table', async () => {
    const { tools } = await bridge.client.listTools();
    const propose = tools.find((tool) => tool.name === 'motion_propose')!;
    const set_param = [...nested(propose.inputSchema as Schema, 'motion_propose')].find(([path]) =>
      path.endsWith('<|set_param>.name'),
    );
    expect(set_param, 'a set_param change with a name').toBeDefined();
    expect(set_param![1].enum).toEqual(Object.keys(ParamsSchema.shape));
  });
});

describe('a bridge tool called over POST /mcp', () => {
  const refusalOf = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await endpoint.callTool({ name, arguments: args });
    expect(result.isError, name).toBe(true);
    return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, string>;
  };

  it('is refused with a pointer to the stdio bridge and POST /api/v1/act, and a link to the docs', async () => {
    for (const name of ['world_move', 'register', 'wait_for_events']) {
      const refusal = await refusalOf(name, { path: ['n'] });
      expect(refusal.error, name).toBe('BRIDGE_ONLY');
      expect(refusal.message, name).toContain('tessera-agent mcp');
      expect(refusal.message, name).toContain('POST /api/v1/act');
      expect(refusal.hint, name).toContain(`'${name}'`);
      expect(refusal.docs, name).toMatch(/\/for-agents$/);
    }
  });

  it('still calls a name no surface offers an unknown tool', async () => {
    expect((await refusalOf('no_such_tool')).error).toBe('UNKNOWN_TOOL');
  });
});
