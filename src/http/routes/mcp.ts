/**
 * POST /mcp: MCP discovery over the Streamable HTTP transport, stateless (docs/mcp.md). Each
 * request gets its own server and transport, so any instance answers any request and nothing is
 * kept between requests; GET (a server-initiated stream) and DELETE (ending a session) have
 * nothing to serve and answer 405.
 */
import { Router, type RequestHandler } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createDiscoveryServer } from '../../mcp/discoveryServer.js';
import type { DiscoveryTool } from '../../mcp/discoveryTools.js';
import { ProblemError } from '../../problems/problem.js';

export function mcpRoutes(tools: DiscoveryTool[]): Router {
  const router = Router();
  router.post('/mcp', async (req, res) => {
    const server = createDiscoveryServer(tools, req.log);
    // JSON answers instead of an SSE stream: every tool answers once, and plain JSON is what
    // proxies and simple clients handle best.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const notAllowed: RequestHandler = (req) => {
    throw new ProblemError('method_not_allowed', `${req.method} /mcp is not offered: the MCP endpoint is stateless; send JSON-RPC with POST.`, {
      headers: { Allow: 'POST' },
    });
  };
  router.get('/mcp', notAllowed);
  router.delete('/mcp', notAllowed);
  return router;
}
