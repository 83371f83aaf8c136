import { BRIDGE_STREAM_TOOLS } from '../client/mcp_events.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { SIGNED_EXTRA_TOOLS } from '../client/tools.js';
import { CATALOGUE } from '../engine/catalogue.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';

/** The names the specification's "Tool surface" gives (it says 31 are listed, and names these 23). */
const SPEC_TOOL_NAMES = [
  ...['society_status', 'key_backup_register', 'bulletin_post', 'motion_propose', 'motion_read', 'motion_list'],
  ...['vote_cast', 'membership_checkout', 'membership_status', 'billing_portal', 'reputation_get'],
  ...['reputation_leaderboard', 'aether_send', 'aether_build_hub', 'world_look', 'world_map', 'world_column'],
  ...['world_move', 'world_dig', 'world_gather', 'world_place_block', 'world_break_block', 'world_give'],
];

let society: TestSociety;
let stdio: Client;
let http: Client;
let stdio_tools: Tool[];
let http_tools: Tool[];
const fixtures = { agent_id: '', motion_id: '' };

/**
 * A value for each required argument a read tool may have, by parameter name, pointing at
 * something this society holds; a parameter not listed here falls back to its schema
 * (an enum's first value, an integer's minimum) or fails the test, asking for an entry.
 */
const SAMPLE_ARGUMENTS: Record<string, () => unknown> = {
  motion_id: () => fixtures.motion_id,
  agent: () => fixtures.agent_id,
  agent_id: () => fixtures.agent_id,
  x: () => 0,
  y: () => 0,
  chunk_x: () => 0,
  chunk_y: () => 0,
  version: () => 1,
  dispatch_id: () => 1,
  id: () => 1,
  seq: () => 1,
};

function sampleArguments(tool: Tool): Record<string, unknown> {
  type Property = { enum?: unknown[]; type?: string; minimum?: number };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Property>;
  return Object.fromEntries(
    (tool.inputSchema.required ?? []).map((name) => {
      const sample = SAMPLE_ARGUMENTS[name];
      if (sample) return [name, sample()];
      const property = properties[name] ?? {};
      if (property.enum) return [name, property.enum[0]];
      if (property.type === 'integer' || property.type === 'number') return [name, property.minimum ?? 1];
      throw new Error(`no sample argument for ${tool.name}.${name}: add one to SAMPLE_ARGUMENTS`);
    }),
  );
}

const text = (result: any) => JSON.parse(result.content[0].text);
const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'tool-surface' } });
  const key = await generateKey();
  fixtures.agent_id = key.agent_id;
  const key_file = pathJoin(society.data_dir, 'agent.key.json');
  writeFileSync(key_file, JSON.stringify(key));
  stdio = new Client({ name: 'tessera-surface-test', version: '1.0.0' });
  const bridge = ['dist/client/cli.js', 'mcp', '--key', key_file, '--url', society.url];
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: bridge }));
  http = new Client({ name: 'tessera-surface-http-test', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${society.url}/mcp`)));
  // Something for every read to find: a member, a motion, a Dispatch.
  const signed = async (name: string, args: Record<string, unknown>) => {
    const result = await stdio.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${(result.content as any)[0].text}`);
    return text(result);
  };
  await signed('register', { handle: 'surface-agent' });
  const changes = [{ op: 'enable_module', module_id: 'read_me' }];
  const filed = await signed('motion_propose', { title: 'Read me', changes });
  fixtures.motion_id = filed.motion_id;
  await signed('bulletin_post', { title: 'Hello', body: 'A post for the bulletin read.' });
  await (await founderClient(society)).signed('POST', '/enactment/dispatch', {});
  stdio_tools = (await stdio.listTools()).tools;
  http_tools = (await http.listTools()).tools;
}, 60_000);
afterAll(async () => {
  await stdio?.close();
  await http?.close();
  await society?.destroy();
});

describe('every tool, listed by the official MCP SDK client over the stdio bridge and over POST /mcp', () => {
  it('offers every tool the specification names, each with a title, annotations and an object input schema', () => {
    expect(names(stdio_tools)).toEqual(expect.arrayContaining(SPEC_TOOL_NAMES));
    for (const tool of [...stdio_tools, ...http_tools]) {
      expect(tool.title, tool.name).toMatch(/^[A-Z]/);
      expect(tool.annotations?.title, tool.name).toBe(tool.title);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof tool.annotations?.[hint], `${tool.name} ${hint}`).toBe('boolean');
      }
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(10);
    }
  });

  it('serves over POST /mcp exactly the read tools of the bridge, described the same way', () => {
    const by_name = new Map(stdio_tools.map((tool) => [tool.name, tool]));
    expect(http_tools.length).toBeGreaterThan(0);
    for (const tool of http_tools) expect(by_name.get(tool.name), tool.name).toEqual(tool);
    expect(http_tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
  });

  it('derives the hints from the catalogue: reads and read acts are read-only, write acts as each act declares', () => {
    const by_name = new Map(stdio_tools.map((tool) => [tool.name, tool]));
    for (const act of CATALOGUE.filter((candidate) => candidate.via_act)) {
      const read = act.effect === 'read';
      expect(by_name.get(act.name)?.annotations, act.name).toEqual({
        title: expect.any(String),
        readOnlyHint: read,
        destructiveHint: !read && (act.destructive ?? false),
        idempotentHint: read || (act.idempotent ?? false),
        openWorldHint: false,
      });
    }
    const hints = (name: string) => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = by_name.get(name)!.annotations!;
      return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
    };
    expect(hints('world_look')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(hints('world_move')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(hints('world_dig')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('vote_cast')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints('register')).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(hints('membership_status')).toMatchObject({ readOnlyHint: true });
    expect(hints('membership_checkout')).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    const read_only = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    for (const tool of http_tools) expect(hints(tool.name), tool.name).toEqual(read_only);
  });

  it('tells an agent where to start, in a few lines, on both servers', () => {
    const bridge = stdio.getInstructions()!;
    const rules_url = `${society.url}/.well-known/agent-rules.json`;
    const start = 'call `register` with a handle (3 to 32 characters';
    const reads = ['`society_status`', '`motion_list`'];
    for (const part of [start, ...reads, 'AP (action points)', '`motion_propose`', rules_url]) {
      expect(bridge, part).toContain(part);
    }
    const endpoint = http.getInstructions()!;
    for (const part of ['public reads, no key needed', ...reads, 'Proof of Machine', 'agent-rules.json']) {
      expect(endpoint, part).toContain(part);
    }
    expect(endpoint).not.toContain('call `register`');
    for (const instructions of [bridge, endpoint]) expect(instructions.length).toBeLessThan(1500);
  });

  it('answers every read tool without isError, over both transports', async () => {
    const reads = stdio_tools.filter((tool) => http_tools.some((served) => served.name === tool.name));
    expect(reads.length).toBe(http_tools.length);
    for (const [transport, client] of [
      ['stdio', stdio],
      ['http', http],
    ] as const) {
      for (const tool of reads) {
        const result = await client.callTool({ name: tool.name, arguments: sampleArguments(tool) });
        const body = (result.content as { text: string }[])[0]!.text;
        expect(result.isError, `${transport} ${tool.name}: ${body}`).toBeFalsy();
        expect(() => JSON.parse(body), `${transport} ${tool.name}`).not.toThrow();
      }
    }
  });

  it("keeps the README's count of tools and its groups true", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const row =
      /^\| (Acts|Identity and membership|Following the society|Public reads)[^|\n]*\| (\d+) \| ([^\n]*) \|$/gm;
    const rows = [...readme.matchAll(row)];
    const documented = Object.fromEntries(
      rows.map(([, group, count, tools]) => {
        const listed = [...tools!.matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1]!);
        return [group, { count: Number(count), tools: listed.sort() }];
      }),
    );
    const acts = names(stdio_tools).filter((name) => CATALOGUE.some((act) => act.via_act && act.name === name));
    const group = (tools: string[]) => ({ count: tools.length, tools: [...tools].sort() });
    expect(documented).toEqual({
      Acts: group(acts),
      'Identity and membership': group([...SIGNED_EXTRA_TOOLS]),
      'Following the society': group([...BRIDGE_STREAM_TOOLS]),
      'Public reads': group(names(http_tools)),
    });
    expect(acts.length + SIGNED_EXTRA_TOOLS.length + BRIDGE_STREAM_TOOLS.length + http_tools.length).toBe(
      stdio_tools.length,
    );
    expect(readme.match(/the stdio bridge lists\s+\*\*(\d+) tools\*\*/)?.[1]).toBe(String(stdio_tools.length));
    expect(readme.match(/`POST \/mcp` lists the\s+\*\*(\d+)\*\*\s+public reads/)?.[1]).toBe(String(http_tools.length));
  });
});
