/**
 * End to end (issue 5): an MCP server built with the seller SDK publishes its paid tools on
 * startup; a real MCP client finds them through GET /mcp/tools, calls one without payment (gets the
 * requirements), then with payment (gets the result); the settlement shows in the listing's signals.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { MCP_META, PaidMcpServer, PaymentClaims, type CatalogOutcomeEvent, type PaidMcpOptions, type PaymentRequired } from '../src/sdk/index.js';
import { waitFor } from './support/harness.js';
import { serveStatelessMcp, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { fundBuyer, usdcBalance } from './support/chainFunding.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

interface ToolListingView {
  id: string;
  resource: string;
  name: string;
  inputSchema: { properties?: Record<string, unknown> };
  payment: { amount: string };
  signals: { settleCount7d: number; lastSettled?: string };
}

/** Shared by the per-request servers: one payment pays for one call. */
const claims = new PaymentClaims();

/** One McpServer per request (stateless Streamable HTTP); the same tools every time. */
function weatherTools(options: PaidMcpOptions): PaidMcpServer {
  const paid = new PaidMcpServer(new McpServer({ name: 'weather-seller', version: '1.0.0' }), options, claims);
  paid.tool(
    'forecast_days',
    {
      description: 'Daily weather forecast (high, low, rain chance) for a city, up to seven days ahead.',
      inputSchema: { city: z.string(), days: z.number().int().min(1).max(7) },
      outputSchema: { city: z.string(), days: z.array(z.object({ high: z.number(), low: z.number() })) },
      tags: ['weather', 'forecast'],
      price: { amount: '3000' },
    },
    async ({ city, days }) => {
      const forecast = { city, days: Array.from({ length: days }, (_, i) => ({ high: 20 + i, low: 10 + i })) };
      return { content: [{ type: 'text', text: JSON.stringify(forecast) }], structuredContent: forecast };
    },
  );
  paid.tool(
    'air_quality',
    { description: 'Air quality index and dominant pollutant for a city.', inputSchema: { city: z.string() }, price: { amount: '1500' } },
    async ({ city }) => ({ content: [{ type: 'text', text: `${city}: AQI 42` }] }),
  );
  return paid;
}

describe('seller SDK: paid MCP tools end to end', function () {
  this.timeout(40_000);
  let world: ServiceWorld;
  let mcp: Listening;
  let options: PaidMcpOptions;
  let startup: PaidMcpServer;
  const sellerWallet = privateKeyToAccount(generatePrivateKey());
  const buyer = privateKeyToAccount(generatePrivateKey());
  const payer = new x402Client().register('eip155:*', new ExactEvmScheme(buyer));
  const catalogOutcomes: CatalogOutcomeEvent[] = [];

  before(async () => {
    world = await startService();
    await fundBuyer(buyer.address, 1_000_000n);
    const { secret } = await world.h.container.publishing.tokens.issue(['127.0.0.1'], 'weather-seller');

    mcp = await serveStatelessMcp(() => weatherTools(options));
    options = { serviceUrl: world.service.url, serverUri: `mcp://127.0.0.1:${mcp.port}`, sellerToken: secret, payTo: sellerWallet.address, onCatalogOutcome: (e) => catalogOutcomes.push(e) };
    // Startup: publish the tools with the seller token.
    startup = weatherTools(options);
    const outcomes = await startup.publish();
    assert.deepEqual(
      outcomes.map((o) => [o.name, o.status]),
      [
        ['forecast_days', 'published'],
        ['air_quality', 'published'],
      ],
    );
  });
  after(async () => {
    startup?.close();
    await mcp?.close();
    await world?.close();
  });

  async function connect(headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'buyer-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers } }));
    return client;
  }

  const findTool = async (q: string, name: string): Promise<ToolListingView> =>
    waitFor(async () => {
      const res = await request(world.h.app).get('/mcp/tools').query({ q }).expect(200);
      return (res.body.results as ToolListingView[]).find((r) => r.name === name);
    }, 10_000);

  it('published tools are found through GET /mcp/tools with their JSON Schemas and price', async () => {
    const listing = await findTool('weather forecast city', 'forecast_days');
    assert.equal(listing.resource, `mcp://127.0.0.1:${mcp.port}/forecast_days`);
    assert.deepEqual(Object.keys(listing.inputSchema.properties ?? {}).sort(), ['city', 'days']);
    assert.equal(listing.payment.amount, '3000');
    const air = await findTool('air quality pollutant', 'air_quality');
    assert.equal(air.payment.amount, '1500');
  });

  it('a call without payment returns an error result carrying the payment requirements', async () => {
    const client = await connect();
    try {
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['air_quality', 'forecast_days']);
      const result = await client.callTool({ name: 'forecast_days', arguments: { city: 'Oslo', days: 2 } });
      assert.equal(result.isError, true);
      // forecast_days has an output schema: the requirements travel in _meta and the text content.
      const required = (result._meta as Record<string, unknown>)[MCP_META.paymentRequired] as PaymentRequired;
      assert.equal(result.structuredContent, undefined);
      assert.equal(required.x402Version, 2);
      assert.deepEqual(required.accepts[0], {
        scheme: 'exact',
        network: NETWORK,
        asset: USDC,
        amount: '3000',
        payTo: sellerWallet.address,
        maxTimeoutSeconds: 60,
        extra: { name: 'USDC', version: '2' },
      });
      assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), required);
      // air_quality has none: the x402 MCP transport's structuredContent as well.
      const air = await client.callTool({ name: 'air_quality', arguments: { city: 'Oslo' } });
      assert.equal(air.isError, true);
      assert.equal((air.structuredContent as unknown as PaymentRequired).accepts[0]?.amount, '1500');
    } finally {
      await client.close();
    }
  });

  it('pays through _meta["x402/payment"]: the tool runs, the receipt comes back, and signals show it', async () => {
    const client = await connect();
    try {
      const first = await client.callTool({ name: 'forecast_days', arguments: { city: 'Oslo', days: 2 } });
      const required = (first._meta as Record<string, unknown>)[MCP_META.paymentRequired];
      const payment = await payer.createPaymentPayload(required as Parameters<typeof payer.createPaymentPayload>[0]);
      const paid = await client.callTool({ name: 'forecast_days', arguments: { city: 'Oslo', days: 2 }, _meta: { [MCP_META.payment]: payment } });
      assert.notEqual(paid.isError, true);
      assert.deepEqual(paid.structuredContent, { city: 'Oslo', days: [{ high: 20, low: 10 }, { high: 21, low: 11 }] });
      const receipt = (paid._meta as Record<string, { success: boolean; payer?: string }>)[MCP_META.paymentResponse];
      assert.equal(receipt?.success, true);
      assert.equal(receipt?.payer?.toLowerCase(), buyer.address.toLowerCase());
      assert.equal(await usdcBalance(sellerWallet.address), 3000n);
      // The seller is told the published tool is cataloged (the EXTENSION-RESPONSES bazaar outcome).
      assert.deepEqual(
        catalogOutcomes.map((e) => [e.operation, e.resource, e.status]),
        [['verify', `${options.serverUri}/forecast_days`, 'success'], ['settle', `${options.serverUri}/forecast_days`, 'success']],
      );

      // The same payment again is refused: settlement is once per payment.
      const replay = await client.callTool({ name: 'forecast_days', arguments: { city: 'Oslo', days: 2 }, _meta: { [MCP_META.payment]: payment } });
      assert.equal(replay.isError, true);
      assert.ok(((replay._meta as Record<string, { error?: string }>)[MCP_META.paymentRequired])?.error);
    } finally {
      await client.close();
    }
    const settled = await waitFor(async () => {
      const listing = await findTool('weather forecast city', 'forecast_days');
      return listing.signals.settleCount7d >= 1 ? listing : undefined;
    }, 10_000);
    assert.equal(settled.signals.settleCount7d, 1);
    assert.ok(settled.signals.lastSettled);
  });

  it('one payment sent with two concurrent calls pays for one of them only', async () => {
    const client = await connect();
    try {
      const first = await client.callTool({ name: 'air_quality', arguments: { city: 'Quito' } });
      const payment = await payer.createPaymentPayload(first.structuredContent as never);
      const call = () => client.callTool({ name: 'air_quality', arguments: { city: 'Quito' }, _meta: { [MCP_META.payment]: payment } });
      const results = await Promise.all([call(), call()]);
      assert.deepEqual(results.map((r) => r.isError === true).sort(), [false, true]);
    } finally {
      await client.close();
    }
  });

  it('pays through an X-Payment header on the Streamable HTTP request', async () => {
    const probe = await connect();
    const challenge = await probe.callTool({ name: 'air_quality', arguments: { city: 'Lima' } });
    await probe.close();
    const payment = await payer.createPaymentPayload(challenge.structuredContent as never);
    const client = await connect({ 'X-Payment': Buffer.from(JSON.stringify(payment)).toString('base64') });
    try {
      const paid = await client.callTool({ name: 'air_quality', arguments: { city: 'Lima' } });
      assert.notEqual(paid.isError, true);
      assert.deepEqual(paid.content, [{ type: 'text', text: 'Lima: AQI 42' }]);
      assert.equal((paid._meta as Record<string, { success: boolean }>)[MCP_META.paymentResponse]?.success, true);
    } finally {
      await client.close();
    }
  });

  it('publishing retries until the service answers, and stops on a refusal', async () => {
    let failures = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (failures < 3) {
        failures += 1;
        throw new TypeError('fetch failed: connect ECONNREFUSED');
      }
      return fetch(input, init);
    };
    const late = new PaidMcpServer(new McpServer({ name: 'x', version: '1' }), { ...options, fetch: flaky, publishRetry: { initialBackoffMs: 20, maxBackoffMs: 40 } });
    late.tool('echo_text', { description: 'Echoes text back.', inputSchema: { text: z.string() }, price: { amount: '1' } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const [published] = await late.publish();
    assert.equal(failures, 3);
    assert.equal(published?.status, 'published');

    const attempts: Error[] = [];
    const pending = new PaidMcpServer(new McpServer({ name: 'x', version: '1' }), {
      ...options,
      serviceUrl: 'http://127.0.0.1:1',
      publishRetry: { initialBackoffMs: 20, maxBackoffMs: 40 },
      onError: (e) => attempts.push(e),
    });
    pending.tool('echo', { description: 'Echoes text back.', inputSchema: { text: z.string() }, price: { amount: '1' } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const result = pending.publish();
    await waitFor(async () => attempts.length >= 3, 5000, 20);
    pending.close();
    assert.deepEqual((await result).map((o) => o.status), ['stopped']);

    const wrongHost = new PaidMcpServer(new McpServer({ name: 'x', version: '1' }), { ...options, serverUri: 'mcp://elsewhere.test' });
    wrongHost.tool('echo', { description: 'Echoes text back.', inputSchema: { text: z.string() }, price: { amount: '1' } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const [refused] = await wrongHost.publish();
    assert.equal(refused?.status, 'refused');
    assert.equal(refused?.status === 'refused' && refused.httpStatus, 403);
  });
});
