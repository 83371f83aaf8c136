import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { EventResources, waitForEventsTool } from './mcp_events.js';
import { serveOver } from './mcp_server.js';
import type { TesseraClient } from './sdk.js';
import { buildTools, type Rules } from './tools.js';

/** A running stdio bridge: its MCP server, and what stops its event streams. */
export interface Bridge {
  server: Server;
  close(): Promise<void>;
}

/**
 * The agent's MCP bridge (`tessera-agent mcp`): every tool built from the service's own
 * agent-rules.json and signed with the client's key, the event-stream tool, and the
 * ledger and the agent's own events as resources. The transport is stdio unless a test
 * gives another, so a test drives the same server an MCP client meets.
 */
export async function startBridge(client: TesseraClient, transport?: Transport): Promise<Bridge> {
  const agent_id = client.key?.agent_id;
  if (!agent_id) throw new Error('the bridge signs with a key: give the client one');
  const rules = await client.get<Rules>('/.well-known/agent-rules.json');
  const resources = new EventResources(client, agent_id);
  const tools = [...buildTools(rules, client, { signed: true }), waitForEventsTool(client)];
  const server = await serveOver(tools, transport, { service_url: client.base_url, resources });
  return {
    server,
    async close() {
      resources.close();
      await server.close();
    },
  };
}
