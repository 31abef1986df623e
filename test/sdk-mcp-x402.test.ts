/**
 * Issue 11 items 2 and 5, with the client packages themselves: `x402-mcp` 0.0.5 (an x402 v1 MCP
 * payment client on the AI SDK's MCP client) pays a tool served by the seller SDK, and the catalog
 * copy of a tool's JSON Schema is exactly what the server's own `tools/list` gives.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { z } from 'zod';
import * as z4 from 'zod/v4';
import { experimental_createMCPClient as createMCPClient } from 'ai';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { withPayment } from 'x402-mcp';
import { MCP_META, PaidMcpServer, PaymentClaims, type PaidMcpOptions, type PaymentRequired } from '../src/sdk/index.js';
import { waitFor } from './support/harness.js';
import { NETWORK, USDC } from './support/payments.js';
import { serveStatelessMcp, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { fundBuyer, usdcBalance } from './support/chainFunding.js';

const claims = new PaymentClaims();

function tideTools(options: PaidMcpOptions): PaidMcpServer {
  const paid = new PaidMcpServer(new McpServer({ name: 'tide-seller', version: '1.0.0' }), options, claims);
  paid.tool(
    'tide_times',
    {
      description: 'High and low tide times for a harbour, up to seven days ahead.',
      inputSchema: { harbour: z.string(), days: z.number().int().min(1).max(7) },
      tags: ['tides'],
      price: { price: '$0.002' },
    },
    async ({ harbour, days }) => ({ content: [{ type: 'text', text: `${harbour}: ${days} day(s) of tides` }] }),
  );
  paid.tool(
    'swell_report',
    {
      description: 'Swell height and period for a surf spot.',
      // zod 4 schemas: the MCP SDK lists them with `$schema` last; a separately converted copy had it first.
      inputSchema: z4.object({ spot: z4.string().min(2), hours: z4.number().int().min(1).max(48).default(12) }),
      outputSchema: { heightM: z.number() },
      price: { amount: '500' },
    },
    async () => ({ content: [{ type: 'text', text: '1.2 m' }], structuredContent: { heightM: 1.2 } }),
  );
  return paid;
}

describe('seller SDK: x402-mcp pays, and the catalog lists the schemas tools/list gives', function () {
  this.timeout(40_000);
  let world: ServiceWorld;
  let mcp: Listening;
  let options: PaidMcpOptions;
  let startup: PaidMcpServer;
  const seller = privateKeyToAccount(generatePrivateKey());

  before(async () => {
    world = await startService();
    const { secret } = await world.h.container.publishing.tokens.issue(['127.0.0.1'], 'tide-seller');
    mcp = await serveStatelessMcp(() => tideTools(options));
    options = { serviceUrl: world.service.url, serverUri: `mcp://127.0.0.1:${mcp.port}`, sellerToken: secret, payTo: seller.address };
    startup = tideTools(options);
    assert.deepEqual((await startup.publish()).map((o) => o.status), ['published', 'published']);
  });
  after(async () => {
    startup?.close();
    await mcp?.close();
    await world?.close();
  });

  it('x402-mcp: an unpaid call offers v1 requirements, generatePaymentAuthorization signs them, the paid call runs and settles', async () => {
    const buyer = privateKeyToAccount(generatePrivateKey());
    await fundBuyer(buyer.address, 1_000_000n);
    const mcpClient = await createMCPClient({ transport: new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)) });
    try {
      const client = await withPayment(mcpClient, { account: buyer, network: 'base-sepolia' });
      const tools = (await client.tools()) as Record<string, { inputSchema: unknown; execute: (args: object, options: object) => Promise<any> }>;
      const call = { toolCallId: 'call-1', messages: [] };

      // What the agent's model sees: the x402 MCP transport's unpaid answer, with v1 requirements beside v2.
      const unpaid = await tools.tide_times!.execute({ harbour: 'Brest', days: 2 }, call);
      assert.equal(unpaid.isError, true);
      assert.equal((unpaid.structuredContent as PaymentRequired).x402Version, 2);
      const offers = (unpaid.content as Array<{ text: string }>).map((c) => JSON.parse(c.text));
      assert.deepEqual(offers[0], unpaid.structuredContent);
      const v1 = offers.find((o) => o.x402Version === 1);
      const { outputSchema, ...v1Requirements } = v1.accepts[0];
      // x402 v1's discovery hint: the facilitator credits the payment to the tool's listing by it.
      assert.deepEqual([outputSchema.input.type, outputSchema.input.toolName], ['mcp', 'tide_times']);
      assert.deepEqual(v1Requirements, {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: '2000',
        resource: `mcp://127.0.0.1:${mcp.port}/tide_times`,
        description: 'High and low tide times for a harbour, up to seven days ahead.',
        mimeType: 'application/json',
        payTo: seller.address,
        maxTimeoutSeconds: 60,
        asset: USDC,
        extra: { name: 'USDC', version: '2' },
      });

      // The model calls x402-mcp's own tool with those requirements (its input schema accepts them as given).
      const authorize = tools.generatePaymentAuthorization!;
      const input = (authorize.inputSchema as z.ZodTypeAny).parse({ paymentRequirements: v1.accepts[0] });
      const { paymentAuthorization } = await authorize.execute(input, call);
      assert.equal(typeof paymentAuthorization, 'string');

      const paid = await tools.tide_times!.execute({ harbour: 'Brest', days: 2, paymentAuthorization }, call);
      assert.notEqual(paid.isError, true, JSON.stringify(paid));
      assert.deepEqual(paid.content, [{ type: 'text', text: 'Brest: 2 day(s) of tides' }]);
      const receipt = paid._meta[MCP_META.paymentResponse];
      assert.equal(receipt.success, true);
      assert.equal(receipt.network, 'base-sepolia');
      assert.equal(receipt.payer.toLowerCase(), buyer.address.toLowerCase());
      assert.equal(await usdcBalance(seller.address), 2000n);

      // The same authorization again is refused (settled once), with the requirements offered anew.
      const replay = await tools.tide_times!.execute({ harbour: 'Brest', days: 2, paymentAuthorization }, call);
      assert.equal(replay.isError, true);
      assert.match((replay.structuredContent as PaymentRequired).error ?? '', /nonce|already/);
    } finally {
      await mcpClient.close();
    }
    const listing = await waitFor(async () => {
      const res = await request(world.h.app).get('/mcp/tools').query({ q: 'tide times harbour' }).expect(200);
      const hit = res.body.results.find((r: { name: string }) => r.name === 'tide_times');
      return hit?.signals.settleCount7d === 1 ? hit : undefined;
    });
    assert.equal(listing.payment.amount, '2000');
  });

  it('the catalog and the challenge carry exactly the JSON Schemas tools/list gives (integer, minimum, maximum kept)', async () => {
    const client = new Client({ name: 'buyer-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
    try {
      const listed = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
      assert.deepEqual((listed.tide_times!.inputSchema.properties as Record<string, unknown>).days, { type: 'integer', minimum: 1, maximum: 7 });
      for (const name of ['tide_times', 'swell_report']) {
        const res = await request(world.h.app).get('/mcp/tools').query({ q: name.replace('_', ' ') }).expect(200);
        const listing = res.body.results.find((r: { name: string }) => r.name === name);
        assert.equal(JSON.stringify(listing.inputSchema), JSON.stringify(listed[name]!.inputSchema), name);
        if (listed[name]!.outputSchema) assert.equal(JSON.stringify(listing.outputSchema), JSON.stringify(listed[name]!.outputSchema), name);
      }
      const unpaid = await client.callTool({ name: 'tide_times', arguments: { harbour: 'Brest', days: 1 } });
      const required = (unpaid._meta as Record<string, PaymentRequired>)[MCP_META.paymentRequired]!;
      const bazaar = required.extensions?.bazaar as { info: { input: { inputSchema: unknown } } };
      assert.deepEqual(bazaar.info.input.inputSchema, listed.tide_times!.inputSchema);
      // Garbage under x402-mcp's key is refused with the requirements, never a crash.
      for (const junk of ['not base64!!', Buffer.from('{"x402Version":1}').toString('base64'), 42, { x402Version: 1 }, null]) {
        const refused = await client.callTool({ name: 'tide_times', arguments: { harbour: 'Brest', days: 1 }, _meta: { [MCP_META.paymentLegacy]: junk } });
        assert.equal(refused.isError, true, JSON.stringify(junk));
        assert.equal((refused.structuredContent as unknown as PaymentRequired).x402Version, 2, JSON.stringify(junk));
      }
    } finally {
      await client.close();
    }
  });
});
