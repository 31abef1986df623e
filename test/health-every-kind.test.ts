/**
 * Health for every listing kind (issue 24, README "Active health"): an MCP tool published by a real
 * MCP SDK server (the seller SDK) and an HTTP listing known only from settlements are put on the
 * health schedule; a check that finds payment requirements counts as up, one that does not as
 * down, and a failing listing is demoted, never removed by the check.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PaidMcpServer, PaymentClaims, type PaidMcpOptions } from '../src/sdk/index.js';
import { httpListingId } from '../src/catalog/identity.js';
import { waitFor } from './support/harness.js';
import { serveStatelessMcp, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { httpInput } from './support/listings.js';

const claims = new PaymentClaims();

function tideTools(options: PaidMcpOptions): PaidMcpServer {
  const paid = new PaidMcpServer(new McpServer({ name: 'tide-seller', version: '1.0.0' }), options, claims);
  paid.tool(
    'tide_heights',
    {
      description: 'High and low tide heights for a harbour, up to seven days ahead.',
      inputSchema: { harbour: z.string().min(1), days: z.number().int().min(1).max(7) },
      tags: ['tides'],
      price: { amount: '2000' },
    },
    async ({ harbour }) => ({ content: [{ type: 'text', text: `${harbour}: high 4.1 m` }] }),
  );
  return paid;
}

interface Health {
  uptime7d: number;
  latencyP50Ms: number | null;
  lastChecked: string;
}

describe('health for every listing kind: MCP tools and settlement-only listings (issue 24)', function () {
  this.timeout(60_000);
  let world: ServiceWorld;
  let mcp: Listening;
  let seller: LocalServer;
  let startup: PaidMcpServer;

  before(async () => {
    world = await startService({ MCP_CHECK_SCHEME: 'http' });
    const { secret } = await world.h.container.publishing.tokens.issue(['127.0.0.1'], 'tide-seller');
    let options: PaidMcpOptions | undefined;
    mcp = await serveStatelessMcp(() => tideTools(options!));
    options = { serviceUrl: world.service.url, serverUri: `mcp://127.0.0.1:${mcp.port}`, sellerToken: secret, payTo: '0x3333333333333333333333333333333333333333' };
    startup = tideTools(options);
    assert.deepEqual((await startup.publish()).map((o) => o.status), ['published']);
    seller = await startServer({ '/paid/quote': answers.v2(() => v2Challenge(seller.url('/paid/quote'))) });
  });
  after(async () => {
    startup?.close();
    await mcp?.close().catch(() => undefined);
    await seller?.close();
    await world?.close();
  });

  const store = () => world.h.container.probing.store;
  const listing = async (id: string) => (await request(world.h.app).get(`/discovery/resources/${id}`).expect(200)).body;
  /** Makes the listing's next check due now (the schedule would otherwise wait a health interval) and waits for its result. */
  async function checkNow(id: string, until: (health: Health | undefined) => boolean): Promise<Health> {
    const before = (await store().get(id))?.lastProbedAt;
    await store().postpone(id, Date.now());
    await waitFor(async () => (await store().get(id))?.lastProbedAt !== before, 15_000);
    return waitFor(async () => {
      const health = (await listing(id)).signals.health as Health | undefined;
      return until(health) ? health : undefined;
    }, 15_000);
  }

  it('an MCP tool is up while an unpaid call answers with its requirements, and demoted once it stops answering', async () => {
    const found = await waitFor(async () => {
      const res = await request(world.h.app).get('/mcp/tools').query({ q: 'tide heights harbour' });
      return res.body.results?.find((r: { name: string }) => r.name === 'tide_heights');
    });
    const record = await waitFor(async () => store().get(found.id));
    assert.equal(record.watch, 'mcp');
    assert.equal(record.resource, `http://127.0.0.1:${mcp.port}/mcp`);
    assert.ok(record.nextProbeAt! > Date.now() + 60_000, 'the first check waits a health interval, like an announced listing');
    assert.deepEqual(JSON.parse(record.callArguments!), { harbour: 'health check', days: 1 });

    const up = await checkNow(found.id, (h) => h?.uptime7d === 1);
    assert.equal(typeof up.latencyP50Ms, 'number');
    const healthy = (await request(world.h.app).get('/mcp/tools').query({ q: 'tide heights harbour', explain: '1' }).expect(200)).body.results[0];
    assert.equal(healthy.debug.healthBoost, 1);

    await mcp.close();
    const down = await checkNow(found.id, (h) => h?.uptime7d === 0.5);
    assert.equal(down.latencyP50Ms, up.latencyP50Ms, 'the median latency is of the successful checks only');
    assert.match((await store().get(found.id))!.detail!, /unreachable: no answer|no answer from the host/);
    // The by-id read is real time; search sees the new signals after the index refresh (1 s).
    const tool = await waitFor(async () => {
      const results = (await request(world.h.app).get('/mcp/tools').query({ q: 'tide heights harbour', explain: '1' }).expect(200)).body.results;
      const shown = results.find((r: { id: string }) => r.id === found.id);
      assert.ok(shown, 'demoted, not removed');
      return shown.signals.health?.uptime7d === 0.5 ? shown : undefined;
    });
    // 0.3 + 0.7 x 0.5 / 0.9 with the shipped health floor and threshold.
    assert.ok(Math.abs(tool.debug.healthBoost - (0.3 + (0.7 * 0.5) / 0.9)) < 1e-4, `healthBoost ${tool.debug.healthBoost}`);
    const filtered = (await request(world.h.app).get('/mcp/tools').query({ q: 'tide heights harbour', minUptime: '0.9' }).expect(200)).body.results;
    assert.ok(!filtered.some((r: { id: string }) => r.id === found.id), 'minUptime 0.9 leaves it out');
  });

  it('a listing known only from settlements is up while its URL answers 402, and demoted (not removed) when it stops', async () => {
    const url = seller.url('/paid/quote');
    const id = httpListingId(url);
    await world.h.container.catalog.writer.upsert(httpInput({ resource: url, describe: { title: 'Harbour quote' } }), { source: 'traffic' });
    const record = await waitFor(async () => store().get(id));
    assert.deepEqual([record.watch, record.resource, record.method, record.status], ['http', url, 'GET', 'listed']);

    await checkNow(id, (h) => h?.uptime7d === 1);
    seller.route('/paid/quote', answers.status(200));
    await checkNow(id, (h) => h?.uptime7d === 0.5);
    const after = await listing(id);
    assert.equal(after.describe.title, 'Harbour quote', 'the check never rewrites the listing');
    assert.equal((await store().get(id))!.reason, 'health_check_failed');

    // An announce of the same URL replaces the health-only record with a normal probe: it lists the
    // resource as announced (and from then on today's probe rules apply, removal included).
    seller.route('/paid/quote', answers.v2(() => v2Challenge(url)));
    await request(world.h.app).post('/discovery/announce').send({ resource: url }).expect(202);
    const announced = await waitFor(async () => {
      const r = await store().get(id);
      return r && r.watch === undefined && r.verifiedResource === url ? r : undefined;
    }, 15_000);
    assert.equal(announced.status, 'listed');
  });
});
