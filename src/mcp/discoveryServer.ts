/**
 * The MCP server behind /mcp: the SDK's low-level `Server` (tools/list and tools/call), so the
 * tools' JSON Schemas are given as they are (the same listing schemas as the OpenAPI document)
 * instead of being re-expressed in zod. A failed tool call is a tool result with `isError: true`
 * naming the problem, as MCP asks for errors an agent can act on; only an unknown tool name is a
 * JSON-RPC error.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { problemOf, problems, type ProblemError } from '../problems/problem.js';
import { unavailableBackendOf } from '../store/backendErrors.js';
import { API_VERSION } from '../version.js';
import type { DiscoveryTool } from './discoveryTools.js';

export const SERVER_NAME = 'paid-api-discovery';

const INSTRUCTIONS =
  'Find paid HTTP APIs and MCP tools (x402). search_resources ranks by relevance, price and recent payments; list_resources filters; get_resource returns one listing. Prices are integer amounts in the asset\'s smallest unit (USDC: 6 decimals).';

/** A problem as the calling agent reads it: the code, what is wrong, and each bad argument. */
function toolError(problem: ProblemError): CallToolResult {
  const errors = (problem.extras.errors ?? []).map((e) => `${e.path}: ${e.message}`);
  const text = `${problem.code}: ${problem.detail}${errors.length > 0 ? ` (${errors.join('; ')})` : ''}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

export function createDiscoveryServer(tools: DiscoveryTool[], logger: Logger): Server {
  const server = new Server({ name: SERVER_NAME, version: API_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema: inputSchema as { type: 'object' },
      outputSchema: outputSchema as { type: 'object' },
      annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Tools: ${[...byName.keys()].join(', ')}.`);
    try {
      const output = await tool.run(request.params.arguments ?? {});
      return { structuredContent: output, content: [{ type: 'text', text: JSON.stringify(output) }] };
    } catch (err) {
      // The same mapping as the HTTP error handler (src/http/middleware.ts).
      const problem = problemOf(err) ?? problemOf(unavailableBackendOf(err));
      if (problem) return toolError(problem);
      logger.error('mcp tool failed', { tool: tool.name, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) });
      return toolError(problems.internal());
    }
  });
  return server;
}
