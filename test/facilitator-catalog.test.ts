import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId, mcpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';

describe('facilitator: cataloging from traffic', () => {
  let h: Harness;
  const payer = newWallet();
  before(async () => {
    h = await startHarness();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 1_000_000n);
  });
  after(async () => h.close());

  const verify = async (body: unknown) => (await request(h.app).post('/verify').send(body as object).expect(200)).body;
  /** Settlements are what lists a resource from traffic (a verify alone only asks for a probe). */
  const settle = async (body: unknown) => (await request(h.app).post('/settle').send(body as object).expect(200)).body;
  const listing = (id: string) => waitFor(async () => h.container.catalog.reader.get(id));
  /** Every catalog write queued so far has been applied: the write queue is ordered, so a marker written last proves it. */
  const appliedSoFar = async () => {
    await h.container.facilitator.cataloger.idle();
    const marker = `http://marker.test/${Date.now()}${Math.random().toString(36).slice(2)}`;
    const { id } = await h.container.catalog.writer.upsert({ type: 'http', resource: marker, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1' } }, { source: 'traffic' });
    await listing(id);
  };

  it('an HTTP resource seen with exact and upto gets one listing whose accepts merge by scheme and network', async () => {
    const seller = newWallet().address;
    const resource = { url: 'https://Api.Example.com:443/reports/daily?day=1', description: 'Daily sales report', mimeType: 'application/json' };
    assert.equal((await settle(await exactRequest(payer, requirements(seller, { amount: '300' }), {}, resource))).success, true);
    assert.equal((await settle(await uptoRequest(payer, requirements(seller, { amount: '900' }), {}, resource))).success, true);
    // A second exact sighting with a new price replaces the exact entry instead of adding one.
    assert.equal((await settle(await exactRequest(payer, requirements(seller, { amount: '350' }), {}, resource))).success, true);
    const id = httpListingId('https://api.example.com/reports/daily', 'GET');
    const doc = await waitFor(async () => {
      const found = await h.container.catalog.reader.get(id);
      return found?.accepts?.length === 2 && found.accepts.some((a) => String(a.amount) === '350') ? found : undefined;
    });
    assert.equal(doc.resource, 'https://api.example.com/reports/daily');
    assert.equal(doc.source, 'traffic');
    assert.equal(doc.describe?.description, 'Daily sales report');
    assert.deepEqual(doc.accepts!.map((a) => `${a.scheme} ${a.network} ${a.amount}`).sort(), ['exact eip155:84532 350', 'upto eip155:84532 900']);
  });

  it('the bazaar extension describes inputs, method and route template', async () => {
    const body = await exactRequest(payer, requirements(newWallet().address), {}, { url: 'http://geo.test/weather/48.85/2.35', description: 'Weather at a point', mimeType: 'application/json' });
    const paymentPayload = {
      ...body.paymentPayload,
      extensions: {
        bazaar: {
          info: { input: { type: 'http', method: 'POST', bodyType: 'json', body: { units: 'metric' }, pathParams: { lat: 48.85, lng: 2.35 } } },
          schema: { properties: { input: { properties: { pathParams: { properties: { lat: { type: 'number' }, lng: { type: 'number' } } } } } } },
          routeTemplate: '/weather/:lat/:lng',
        },
      },
    };
    assert.equal((await settle({ ...body, paymentPayload })).success, true);
    const doc = await listing(httpListingId('http://geo.test/weather/48.85/2.35', 'POST', '/weather/:lat/:lng'));
    assert.equal(doc.resource, 'http://geo.test/weather/{lat}/{lng}');
    assert.equal(doc.method, 'POST');
    assert.deepEqual(doc.describe?.inputs, { lat: 'number', lng: 'number', units: 'string' });
  });

  it('an MCP tool (bazaar input type mcp) is keyed by server and tool name', async () => {
    const body = await exactRequest(payer, requirements(newWallet().address), {}, { url: 'mcp://tools.example/get_forecast', description: 'Forecast tool', mimeType: 'application/json' });
    const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const paymentPayload = {
      ...body.paymentPayload,
      extensions: { bazaar: { info: { input: { type: 'mcp', toolName: 'get_forecast', description: 'Seven-day forecast for a city', inputSchema } } } },
    };
    assert.equal((await settle({ ...body, paymentPayload })).success, true);
    const doc = await listing(mcpListingId('mcp://tools.example/get_forecast', 'get_forecast'));
    assert.equal(doc.type, 'mcp');
    assert.equal(doc.name, 'get_forecast');
    assert.equal(doc.description, 'Seven-day forecast for a city');
    assert.deepEqual(doc.inputSchema, inputSchema);
  });

  it("a seller's published listing keeps its declared content; traffic only marks it seen, and never revives an unpublished one", async () => {
    const url = 'http://published.test/quote';
    const payment = { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1000' };
    const { id } = await h.container.catalog.writer.upsert(
      { type: 'http', resource: url, payment, describe: { description: 'Declared by the seller', tags: ['finance'] } },
      { source: 'announce', seenAt: new Date(Date.now() - 3600_000) },
    );
    const before = await listing(id);
    const body = await exactRequest(payer, requirements(newWallet().address), {}, { url, description: 'Something else', mimeType: '' });
    assert.equal((await settle(body)).success, true);
    const touched = await waitFor(async () => {
      const doc = await h.container.catalog.reader.get(id);
      return doc && doc.lastSeen > before.lastSeen ? doc : undefined;
    });
    assert.equal(touched.source, 'announce');
    assert.equal(touched.describe?.description, 'Declared by the seller');
    assert.deepEqual(touched.describe?.tags, ['finance']);

    await h.container.catalog.writer.remove(id, 'unpublished');
    await waitFor(async () => (await h.container.catalog.reader.get(id))?.removed === true);
    const again = await exactRequest(payer, requirements(newWallet().address), {}, { url, description: 'Something else', mimeType: '' });
    assert.equal((await settle(again)).success, true);
    await appliedSoFar();
    const after = await h.container.catalog.reader.get(id);
    assert.equal(after?.removed, true);
    assert.equal(after?.describe?.description, 'Declared by the seller');
  });

  it('rejected payments list nothing; an uncatalogable resource never fails the payment', async () => {
    const rejected = await exactRequest(payer, requirements(newWallet().address), { value: '1' }, { url: 'http://rejected.test/x', description: 'never', mimeType: '' });
    assert.equal((await verify(rejected)).isValid, false);
    const odd = await exactRequest(payer, requirements(newWallet().address), {}, { url: 'ftp://files.test/x', description: 'odd', mimeType: '' });
    assert.equal((await verify(odd)).isValid, true);
    assert.equal((await settle(odd)).success, true);
    await appliedSoFar();
    assert.equal(await h.container.catalog.reader.get(httpListingId('http://rejected.test/x')), undefined);
  });

  it('a burst of payments for one resource is written a few times, not once per payment, and ends with the latest price of each scheme', async () => {
    const resource = { url: 'https://burst.example.com/quote', description: 'Quotes under load', mimeType: 'application/json' };
    const id = httpListingId(resource.url, 'GET');
    const writer = h.container.catalog.writer;
    const upsert = writer.upsert.bind(writer);
    let writes = 0;
    writer.upsert = async (...args) => {
      if (args[0].resource === 'https://burst.example.com/quote') writes += 1;
      return upsert(...args);
    };
    try {
      // A new payee and price each time, exact and upto alternating: no sighting repeats another.
      const burst = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 ? uptoRequest : exactRequest)(payer, requirements(newWallet().address, { amount: String(2000 + i) }), {}, resource),
        ),
      );
      await Promise.all(burst.map(settle));
      // The last sightings, after the burst: what the listing must show once everything is written.
      await settle(await exactRequest(payer, requirements(newWallet().address, { amount: '7001' }), {}, resource));
      await settle(await uptoRequest(payer, requirements(newWallet().address, { amount: '9001' }), {}, resource));
      await appliedSoFar();
    } finally {
      writer.upsert = upsert;
    }
    const doc = await h.container.catalog.reader.get(id);
    assert.deepEqual(doc?.accepts?.map((a) => `${a.scheme} ${a.amount}`).sort(), ['exact 7001', 'upto 9001']);
    // Without coalescing: 62 writes, one after another (a stopping instance waited for every one).
    assert.ok(writes <= 20, `${writes} catalog writes for 62 payments`);
  });
});
