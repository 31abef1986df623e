/**
 * The JSON Schemas an MCP server lists for a tool, exactly as its own `tools/list` answers them
 * (docs/sdk.md "Schemas"). Converting the seller's zod schema here would be a second copy that
 * drifts whenever the seller's McpServer (and the zod it resolves) is another copy than the one
 * this SDK imports: `integer`, `minimum` and `maximum` turned into a bare `number` in the catalog.
 *
 * The seller's server may already serve a transport (an MCP server serves one at a time), so the
 * question goes to a twin: a new instance of the seller's own McpServer class with the same tool
 * definition, over an in-memory MCP connection. Same class, same schema objects: same listing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnySchema, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';

export interface ListedSchemas {
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface ToolDefinition {
  description: string;
  inputSchema: ZodRawShapeCompat | AnySchema;
  outputSchema?: ZodRawShapeCompat | AnySchema;
}

type McpServerClass = new (info: { name: string; version: string }) => McpServer;

/** Throws what the server's own `tools/list` would fail with (a schema zod cannot express in JSON Schema). */
export async function listedSchemas(server: McpServer, name: string, tool: ToolDefinition): Promise<ListedSchemas> {
  const twin = new (server.constructor as McpServerClass)({ name: 'schema-listing', version: '1.0.0' });
  twin.registerTool(
    name,
    { description: tool.description, inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) },
    async () => ({ content: [] }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'paid-api-discovery-sdk', version: '1.0.0' });
  try {
    await twin.connect(serverSide);
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === name);
    if (!listed) throw new Error(`the MCP server did not list tool ${name}`);
    return { inputSchema: listed.inputSchema, ...(listed.outputSchema ? { outputSchema: listed.outputSchema } : {}) };
  } finally {
    await client.close();
    await twin.close();
  }
}
