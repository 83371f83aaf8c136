import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { generateKey } from '../../client/keys.js';
import { startBridge, type Bridge } from '../../client/mcp_bridge.js';
import { TesseraClient } from '../../client/sdk.js';

/** The official SDK client on the stdio bridge's server (in-process, so the sources are what is tested). */
export async function bridgeClient(url: string): Promise<{ client: Client; bridge: Bridge; agent_id: string }> {
  const key = await generateKey();
  const [client_side, server_side] = InMemoryTransport.createLinkedPair();
  const bridge = await startBridge(new TesseraClient(url, key), server_side);
  const client = new Client({ name: 'tessera-test', version: '1.0.0' });
  await client.connect(client_side);
  return { client, bridge, agent_id: key.agent_id };
}

/** The official SDK client on the service's own POST /mcp. */
export async function endpointClient(url: string): Promise<Client> {
  const client = new Client({ name: 'tessera-test-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}
