/**
 * Issue 11 item 1: the x402 packages' own discovery clients read this catalog through the
 * Bazaar-shaped surface under /x402 — `useFacilitator().list()` from `x402` (v1) and
 * `withBazaar(client).extensions.bazaar.listResources()` / `.search()` from `@x402/extensions` —
 * and unmodified x402 sellers and buyers pay through the same base URL; the results are the
 * catalog's own search (same filters, ranking and cursors as /discovery/*).
 */
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { bazaarResourceServerExtension, declareDiscoveryExtension, validateDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { useFacilitator } from 'x402/verify';
import { paymentMiddleware as paymentMiddlewareV1 } from 'x402-express';
import { createSigner, wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { BAZAAR_MAX_OFFSET } from '../src/bazaar/bazaarRequest.js';
import { httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { waitFor } from './support/harness.js';
import { NETWORK, newWallet, USDC } from './support/payments.js';
import { listen, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { fundBuyer, usdcBalance } from './support/chainFunding.js';

const OTHER_PAY_TO = '0x2222222222222222222222222222222222222222';

describe('x402 Bazaar surface (/x402) with the x402 client packages', function () {
  this.timeout(30_000);
  let world: ServiceWorld;
  let base: string;
  let seller: Listening | undefined;
  let bazaar: ReturnType<typeof withBazaar<HTTPFacilitatorClient>>['extensions']['bazaar'];

  before(async () => {
    world = await startService();
    base = `${world.service.url}/x402`;
    bazaar = withBazaar(new HTTPFacilitatorClient({ url: base })).extensions.bazaar;
    await seed(world.h, [
      httpListing({ path: 'weather/today', title: 'City weather today', description: 'Current weather conditions for a city', tags: ['weather'], amount: '1000' }),
      httpListing({ path: 'weather/week', title: 'Weekly weather forecast', description: 'Seven day weather forecast for a city', tags: ['weather'], amount: '4000' }),
      httpListing({ path: 'fx/rates', title: 'Currency rates', description: 'Foreign exchange rates', payTo: OTHER_PAY_TO }),
      mcpListing({ name: 'forecast_days', description: 'Daily weather forecast for up to seven days', tags: ['weather'] }),
      mcpListing({ name: 'translate_text', description: 'Translate text between languages' }),
    ]);
  });
  afterEach(async () => {
    await seller?.close();
    seller = undefined;
  });
  after(async () => world?.close());

  it('x402 useFacilitator().list() pages with limit/offset and reads the total', async () => {
    const { list } = useFacilitator({ url: base as `${string}://${string}` });
    const first = await list({ type: 'http', limit: 2, offset: 0 });
    const second = await list({ type: 'http', limit: 2, offset: 2 });
    assert.equal(first.x402Version, 2);
    assert.deepEqual(first.pagination, { limit: 2, offset: 0, total: 3 });
    assert.deepEqual(second.pagination, { limit: 2, offset: 2, total: 3 });
    const resources = [...first.items, ...second.items].map((item) => item.resource);
    assert.deepEqual(new Set(resources), new Set(['weather/today', 'weather/week', 'fx/rates'].map((p) => `https://svc.example.org/${p}`)));
    // The same order as the native structured read (newest first).
    const native = await request(world.h.app).get('/discovery/resources').query({ type: 'http' }).expect(200);
    assert.deepEqual(resources, native.body.results.map((r: { resource: string }) => r.resource));
    const weather = first.items.concat(second.items).find((item) => item.resource.endsWith('/weather/week'))!;
    assert.equal(weather.type, 'http');
    assert.equal(weather.x402Version, 2);
    assert.deepEqual(weather.accepts, [{ scheme: 'exact', network: NETWORK, asset: USDC, amount: '4000', payTo: '0x1111111111111111111111111111111111111111' }]);
    assert.ok(!Number.isNaN(Date.parse(String(weather.lastUpdated))));
  });

  it('withBazaar().listResources() filters like the catalog, and every item carries a valid bazaar extension', async () => {
    const tools = await bazaar.listResources({ type: 'mcp' });
    assert.deepEqual(tools.items.map((i) => i.resource).sort(), ['mcp://tools.example.org/forecast_days', 'mcp://tools.example.org/translate_text']);
    const tool = tools.items.find((i) => i.resource.endsWith('/forecast_days'))!;
    const info = (tool.extensions!.bazaar as { info: { input: Record<string, unknown> } }).info.input;
    assert.deepEqual(info, {
      type: 'mcp',
      toolName: 'forecast_days',
      description: 'Daily weather forecast for up to seven days',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    });
    const all = await bazaar.listResources({ limit: 100 });
    assert.equal(all.items.length, 5);
    for (const item of all.items) assert.deepEqual(validateDiscoveryExtension(item.extensions!.bazaar as never), { valid: true }, item.resource);

    assert.deepEqual((await bazaar.listResources({ payTo: OTHER_PAY_TO })).items.map((i) => i.resource), ['https://svc.example.org/fx/rates']);
    // v1 network names are the same network.
    assert.equal((await bazaar.listResources({ network: 'base-sepolia', scheme: 'exact' })).pagination.total, 5);
    assert.equal((await bazaar.listResources({ extensions: 'bazaar' })).pagination.total, 5);
    assert.deepEqual(await bazaar.listResources({ extensions: 'sign-in-with-x' }), { x402Version: 2, items: [], pagination: { limit: 20, offset: 0, total: 0 } });
  });

  it('withBazaar().search() ranks as /discovery/search, and its cursor pages the same way', async () => {
    const first = await bazaar.search({ query: 'weather forecast', limit: 2 });
    assert.equal(first.partialResults, true);
    assert.equal(first.pagination?.limit, 2);
    assert.ok(first.pagination?.cursor);
    const rest = await bazaar.search({ query: 'weather forecast', limit: 2, cursor: first.pagination!.cursor! });
    const native = await request(world.h.app).get('/discovery/search').query({ q: 'weather forecast', limit: 4 }).expect(200);
    assert.deepEqual(
      [...first.resources, ...rest.resources].map((r) => r.resource),
      native.body.results.map((r: { resource: string }) => r.resource).slice(0, first.resources.length + rest.resources.length),
    );
    assert.equal(first.resources[0]!.resource, native.body.results[0].resource);
    const tools = await bazaar.search({ query: 'weather', type: 'mcp' });
    assert.deepEqual(tools.resources.map((r) => r.resource), ['mcp://tools.example.org/forecast_days']);
    assert.equal(tools.partialResults, false);
    assert.deepEqual(tools.pagination, { limit: 20, cursor: null });
  });

  it('bad parameters are problem+json with the catalog codes; an advisory limit above 100 is lowered', async () => {
    const bad = async (path: string, query: Record<string, string | string[]>, code: string, field: string) => {
      const res = await request(world.h.app).get(`/x402/discovery/${path}`).query(query).expect(400);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.body.code, code);
      assert.ok(res.body.errors.some((e: { path: string }) => e.path === field), JSON.stringify(res.body));
    };
    await bad('resources', { offset: String(BAZAAR_MAX_OFFSET + 1) }, 'invalid_filter_value', 'offset');
    await bad('resources', { offset: '-1' }, 'invalid_filter_value', 'offset');
    await bad('resources', { limit: '0' }, 'invalid_filter_value', 'limit');
    await bad('resources', { type: 'ftp', limit: 'x' }, 'invalid_filter_value', 'type');
    await bad('resources', { q: 'weather' }, 'unknown_filter', 'q');
    await bad('resources', { cursor: 'abc' }, 'unknown_filter', 'cursor');
    await bad('search', {}, 'missing_query', 'query');
    await bad('search', { query: 'weather', offset: '2' }, 'unknown_filter', 'offset');
    await bad('search', { query: 'x'.repeat(600) }, 'invalid_filter_value', 'query');
    await bad('search', { query: ['a', 'b'] }, 'invalid_filter_value', 'query');
    await bad('search', { query: 'weather', extensions: ' ' }, 'invalid_filter_value', 'extensions');
    const other = await bazaar.search({ query: 'weather', limit: 1 });
    await bad('search', { query: 'currency', cursor: other.pagination!.cursor! }, 'invalid_cursor', 'cursor');
    const big = await request(world.h.app).get('/x402/discovery/resources').query({ limit: '500' }).expect(200);
    assert.equal(big.body.pagination.limit, 100);
    await assert.rejects(bazaar.listResources({ offset: BAZAAR_MAX_OFFSET + 1 }), /\(400\)/);
  });

  it('fuzz: random query strings get 200 or a 400 problem+json, never a 500', async () => {
    const names = ['query', 'type', 'payTo', 'scheme', 'network', 'extensions', 'limit', 'offset', 'cursor', 'q', 'sort', '__proto__', 'constructor'];
    const values = ['', ' ', 'http', 'mcp', 'exact', 'bazaar', 'base-sepolia', 'eip155:84532', '-1', '0', '1', '100', '101', '9000', '9001', '1e3', '0x12', 'NaN', '%00', '\u0000', 'x'.repeat(700), '[]', '{}', 'weather'];
    let seed = 11;
    const pick = <T>(list: T[]): T => list[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % list.length]!;
    for (let i = 0; i < 150; i += 1) {
      const params = new URLSearchParams();
      for (let n = pick([0, 1, 2, 3, 4]); n > 0; n -= 1) params.append(pick(names), pick(values));
      const path = `/x402/discovery/${pick(['resources', 'search'])}?${params}`;
      const res = await request(world.h.app).get(path);
      assert.ok(res.status === 200 || res.status === 400, `${path} -> ${res.status} ${res.text}`);
      if (res.status === 400) assert.match(String(res.headers['content-type']), /^application\/problem\+json/, path);
    }
  });

  it('/x402/supported advertises the surface; an @x402/express seller and an @x402/fetch buyer pay through it', async () => {
    const facilitator = new HTTPFacilitatorClient({ url: base });
    assert.ok((await facilitator.getSupported()).extensions.includes('bazaar'));
    const supported = (await (await fetch(`${base}/supported`)).json()) as { discovery?: unknown };
    assert.deepEqual(supported.discovery, { bazaar: { url: '/x402', resources: '/x402/discovery/resources', search: '/x402/discovery/search' } });

    const payTo = newWallet().address;
    const app = express();
    const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmServer()).registerExtension(bazaarResourceServerExtension);
    const route = {
      accepts: { scheme: 'exact', price: '$0.002', network: NETWORK, payTo },
      description: 'Tide tables for a harbour',
      mimeType: 'application/json',
      extensions: { ...declareDiscoveryExtension({ input: { harbour: 'Brest' }, inputSchema: { properties: { harbour: { type: 'string' } } } }) },
    } as const;
    app.use(paymentMiddleware({ 'GET /tides': route }, server));
    app.get('/tides', (_req, res) => void res.json({ harbour: 'Brest', high: '06:12' }));
    seller = await listen(app);

    const buyer = privateKeyToAccount(generatePrivateKey());
    await fundBuyer(buyer.address, 1_000_000n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const res = await wrapFetchWithPayment(fetch, client)(`${seller.url}/tides?harbour=Brest`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(await usdcBalance(payTo), 2000n);

    const found = await waitFor(async () => {
      const page = await bazaar.search({ query: 'tide tables harbour' });
      const hit = page.resources.find((r) => r.resource === `${seller!.url}/tides`);
      return hit && (hit as { metadata?: { signals: { settleCount7d: number } } }).metadata?.signals.settleCount7d === 1 ? hit : undefined;
    });
    assert.equal(found.description, 'Tide tables for a harbour');
    assert.equal(found.accepts[0]?.amount, '2000');
  });

  it('v1: an x402-express seller and an x402-fetch buyer pay through /x402; useFacilitator().list() finds the resource', async () => {
    const payTo = newWallet().address;
    const app = express();
    const config = { description: 'Legacy ferry timetable', inputSchema: { queryParams: { port: 'string' } } };
    app.use(paymentMiddlewareV1(payTo, { 'GET /ferries': { price: '$0.001', network: 'base-sepolia', config } }, { url: base as `${string}://${string}` }));
    app.get('/ferries', (_req, res) => void res.json({ port: 'Roscoff', departures: ['08:00'] }));
    seller = await listen(app);

    const key = generatePrivateKey();
    await fundBuyer(privateKeyToAccount(key).address, 1_000_000n);
    const res = await wrapFetchWithPaymentV1(fetch, await createSigner('base-sepolia', key))(`${seller.url}/ferries`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(await usdcBalance(payTo), 1000n);

    const { list } = useFacilitator({ url: base as `${string}://${string}` });
    const item = await waitFor(async () => (await list({ type: 'http', limit: 100 })).items.find((i) => i.resource === `${seller!.url}/ferries`));
    assert.equal((item as unknown as { description?: string }).description, 'Legacy ferry timetable');
    assert.equal(item.accepts[0]?.network, NETWORK);
  });
});
