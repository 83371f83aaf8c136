import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EventResources } from './mcp_events.js';
import { instructionsFor } from './mcp_instructions.js';
import { toolRefusal, type ToolRefusal } from './tool_refusal.js';
import type { Tool } from './tools.js';

export interface ToolServerOptions {
  /** The service's address, for the links in the instructions. */
  service_url?: string;
  /** The ledger and the agent's own events as subscribable resources (the stdio bridge). */
  resources?: EventResources;
  /** The answer to a tool this server does not offer; by default UNKNOWN_TOOL. A server that knows where the tool is offered says so. */
  absentTool?: (name: string) => ToolRefusal;
}

const unknownTool = (name: string): ToolRefusal => ({
  error: 'UNKNOWN_TOOL',
  message: `There is no tool named '${name}'.`,
});

const answer = (body: unknown, isError = false): CallToolResult => ({
  ...(isError ? { isError } : {}),
  content: [{ type: 'text', text: JSON.stringify(body) }],
});

/**
 * An MCP server over a list of tools. A refusal of the society comes back as a tool
 * result with isError and a ToolRefusal (client/tool_refusal.ts), so an agent can read
 * it and act on it; an unknown tool gets the same shape.
 */
export function toolServer(tools: Tool[], options: ToolServerOptions = {}): Server {
  const instructions = instructionsFor(tools, options.service_url);
  const capabilities = options.resources ? { tools: {}, resources: { subscribe: true } } : { tools: {} };
  const server = new Server({ name: 'tessera', version: '0.1.0' }, { capabilities, instructions });
  options.resources?.attach(server);
  const by_name = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object' },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = by_name.get(request.params.name);
    if (!tool) return answer((options.absentTool ?? unknownTool)(request.params.name), true);
    try {
      return answer(await tool.call((request.params.arguments ?? {}) as Record<string, unknown>));
    } catch (error) {
      return answer(toolRefusal(error), true);
    }
  });
  return server;
}

export async function serveOver(
  tools: Tool[],
  transport: Transport = new StdioServerTransport(),
  options: ToolServerOptions = {},
): Promise<Server> {
  const server = toolServer(tools, options);
  await server.connect(transport);
  return server;
}
