import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Bridge } from '../client/mcp_bridge.js';
import { LEDGER_RESOURCE, ownEventsResource } from '../client/mcp_events.js';
import { bridgeClient } from './helpers/mcp_clients.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

let society: TestSociety;
let bridge: { client: Client; bridge: Bridge; agent_id: string };

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'mcp-templates' } });
  bridge = await bridgeClient(society.url);
});
afterAll(async () => {
  await bridge?.client.close();
  await bridge?.bridge.close();
  await society?.destroy();
});

describe('the stdio bridge resources, asked by the official MCP SDK client', () => {
  it('answers resources/templates/list (no templates: its resources are fixed addresses) beside resources/list', async () => {
    const { resourceTemplates } = await bridge.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([]);
    const { resources } = await bridge.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([LEDGER_RESOURCE, ownEventsResource(bridge.agent_id)]);
  });
});
