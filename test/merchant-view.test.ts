/**
 * Merchant view (issue 24): GET /discovery/merchant and the MCP tool get_merchant over the demo
 * catalog, checked against the demo file itself (which listings pay each address, their signals).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { demoListings, seedDemoCatalog } from './support/demoCatalog.js';
import { startService, type ServiceWorld } from './support/sdkWorld.js';

describe('merchant view: one payTo, all its listings and their totals (issue 24)', function () {
  this.timeout(40_000);
  let world: ServiceWorld;
  let client: Client;
  const demo = demoListings();
  // The demo address with the most listings.
  const counts = new Map<string, number>();
  for (const l of demo) counts.set(l.payment.payTo!, (counts.get(l.payment.payTo!) ?? 0) + 1);
  const [payTo] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  const own = demo.filter((l) => l.payment.payTo!.toLowerCase() === payTo.toLowerCase());

  before(async () => {
    world = await startService();
    await seedDemoCatalog(world.h);
    client = new Client({ name: 'merchant-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${world.service.url}/mcp`)));
  });
  after(async () => {
    await client?.close();
    await world?.close();
  });

  it('summarizes exactly the listings that pay the address, and pages through all of them', async () => {
    assert.ok(own.length >= 3, `the demo address ${payTo} has ${own.length} listings`);
    const first = (await request(world.h.app).get('/discovery/merchant').query({ payTo: payTo.toLowerCase(), limit: '2' }).expect(200)).body;
    const settled = own.map((l) => l.signals?.lastSettled).filter((d): d is string => typeof d === 'string').sort();
    assert.deepEqual(first.summary, {
      listings: own.length,
      http: own.filter((l) => l.type === 'http').length,
      mcp: own.filter((l) => l.type === 'mcp').length,
      // Most listings first (ties by name), as Elasticsearch's terms aggregation orders them.
      networks: [...new Set(own.map((l) => l.payment.network))]
        .map((n) => [n, own.filter((l) => l.payment.network === n).length] as const)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .map(([n]) => n),
      settleCount7d: own.reduce((sum, l) => sum + (l.signals?.settleCount7d ?? 0), 0),
      ...(settled.length > 0 ? { lastSettled: new Date(settled[settled.length - 1]!).toISOString() } : {}),
      firstSeen: first.summary.firstSeen,
      healthChecked: 0,
    });
    assert.ok(Date.parse(first.summary.firstSeen) <= Date.now());
    const ids = first.results.map((r: { id: string }) => r.id);
    let cursor = first.nextCursor as string | undefined;
    while (cursor) {
      const page = (await request(world.h.app).get('/discovery/merchant').query({ payTo: payTo.toLowerCase(), limit: '2', cursor }).expect(200)).body;
      ids.push(...page.results.map((r: { id: string }) => r.id));
      cursor = page.nextCursor;
    }
    const expected = (await request(world.h.app).get('/discovery/resources').query({ payTo, limit: '100' }).expect(200)).body.results.map((r: { id: string }) => r.id);
    assert.deepEqual(ids, expected, 'the same listings, newest first, as /discovery/resources?payTo=');
    assert.equal(ids.length, own.length);
  });

  it('get_merchant over MCP answers the same', async () => {
    const result = (await client.callTool({ name: 'get_merchant', arguments: { payTo, limit: 100 } })) as { isError?: boolean; structuredContent?: any };
    assert.equal(result.isError, undefined);
    const http = (await request(world.h.app).get('/discovery/merchant').query({ payTo, limit: '100' }).expect(200)).body;
    assert.deepEqual(result.structuredContent, http);
    const missing = (await client.callTool({ name: 'get_merchant', arguments: {} })) as { isError?: boolean };
    assert.equal(missing.isError, true);
  });

  it('an unknown address is 404, a missing or repeated payTo 400, all problem+json', async () => {
    const unknown = await request(world.h.app).get('/discovery/merchant').query({ payTo: '0x0000000000000000000000000000000000000001' }).expect(404);
    assert.equal(unknown.body.code, 'not_found');
    for (const query of ['', '?limit=2', '?payTo=', '?payTo=a&payTo=b', '?payTo=0xabc&q=weather', '?payTo=0xabc&limit=0']) {
      const res = await request(world.h.app).get(`/discovery/merchant${query}`).expect(400);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.ok(['invalid_filter_value', 'unknown_filter'].includes(res.body.code), JSON.stringify(res.body));
    }
  });
});
