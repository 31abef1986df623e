/**
 * A paid MCP server (Streamable HTTP) with the seller SDK. Against a local service:
 *   npm run dev
 *   npm run tokens -- issue --host 127.0.0.1 --label mcp-example     # prints the seller token once
 *   SELLER_TOKEN=pdsk_... PAY_TO=0xYourAddress npx tsx examples/mcp-seller.ts
 * On startup the tools are published (retrying until the service answers); then
 *   curl 'http://127.0.0.1:8080/mcp/tools?q=forecast'
 * An MCP client calling `forecast` without payment gets an error result whose
 * `_meta["x402/payment-required"]` holds the requirements; it pays by sending the x402 payment in
 * `_meta["x402/payment"]` (or an X-Payment header) and gets `_meta["x402/payment-response"]` back.
 * In another project: import { PaidMcpServer } from 'paid-api-discovery/sdk';
 */
import express from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { PaidMcpServer, PaymentClaims, type PaidMcpOptions } from '../src/sdk/index.js';

const port = Number(process.env.PORT ?? 4022);
const options: PaidMcpOptions = {
  serviceUrl: process.env.SERVICE_URL ?? 'http://127.0.0.1:8080',
  serverUri: process.env.SERVER_URI ?? `mcp://127.0.0.1:${port}`,
  payTo: process.env.PAY_TO ?? '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  network: 'eip155:84532',
  ...(process.env.SELLER_TOKEN ? { sellerToken: process.env.SELLER_TOKEN } : {}),
  onError: (err) => console.warn(`[mcp-seller] ${err.message}`),
};

/** Shared by the per-request servers, so that one payment pays for one call. */
const claims = new PaymentClaims();

/** The server's paid tools; built per request (stateless Streamable HTTP) and once for publishing. */
function buildServer(): PaidMcpServer {
  const paid = new PaidMcpServer(new McpServer({ name: 'weather-tools', version: '1.0.0' }), options, claims);
  paid.tool(
    'forecast',
    {
      description: 'Daily high/low forecast for a city, up to seven days ahead.',
      inputSchema: { city: z.string(), days: z.number().int().min(1).max(7) },
      outputSchema: { city: z.string(), days: z.array(z.object({ high: z.number(), low: z.number() })) },
      tags: ['weather', 'forecast'],
      price: { price: '$0.003' },
    },
    async ({ city, days }) => {
      const forecast = { city, days: Array.from({ length: days }, (_, i) => ({ high: 20 + i, low: 11 + i })) };
      return { content: [{ type: 'text', text: JSON.stringify(forecast) }], structuredContent: forecast };
    },
  );
  return paid;
}

const app = express();
app.use(express.json());
app.post('/mcp', async (req, res) => {
  const { server } = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close());
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});

app.listen(port, '127.0.0.1', () => {
  console.log(`paid MCP server on http://127.0.0.1:${port}/mcp as ${options.serverUri}`);
  if (!options.sellerToken) {
    console.warn('SELLER_TOKEN not set: tools are served but not published');
    return;
  }
  const publisher = buildServer();
  void publisher.publish().then((outcomes) => {
    for (const o of outcomes) console.log(`publish ${o.name}: ${o.status}${o.status === 'published' ? ` ${o.id}` : ''}`);
  });
});
