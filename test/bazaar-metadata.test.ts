/**
 * Issue 24, deliverable 1: the x402 Bazaar service metadata (`serviceName`, `tags`, `iconUrl`,
 * `routeTemplate`) is read the same way from a probed 402 (a real @x402/express seller), and shown
 * on the listing and on the Bazaar surface; a seller's publish reads `serviceName` and `iconUrl` by
 * the same rules.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';

describe('Bazaar service metadata on every path', function () {
  this.timeout(60_000);
  let h: Harness;
  let facilitatorUrl: string;
  const servers: Server[] = [];

  async function listen(app: express.Express): Promise<number> {
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
      servers.push(server);
    });
  }

  before(async () => {
    h = await startHarness({ PROBE_ALLOW: '127.0.0.1/32', RATE_LIMIT_ANNOUNCE: 'off' });
    facilitatorUrl = `http://127.0.0.1:${await listen(h.app)}`;
  });

  after(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await h?.close();
  });

  it('a real @x402/express seller declaring serviceName "Harbour Tides" is listed with that title by the probe', async () => {
    const { paymentMiddleware, x402ResourceServer } = await import('@x402/express');
    const { ExactEvmScheme } = await import('@x402/evm/exact/server');
    const { HTTPFacilitatorClient } = await import('@x402/core/server');
    const { declareDiscoveryExtension } = await import('@x402/extensions/bazaar');
    const seller = express();
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register('eip155:84532', new ExactEvmScheme());
    seller.use(
      paymentMiddleware(
        {
          'GET /tides/:port': {
            accepts: { scheme: 'exact', price: '$0.002', network: 'eip155:84532', payTo: '0x4444444444444444444444444444444444444444' },
            description: 'High and low tide times for a harbour',
            serviceName: 'Harbour Tides',
            tags: ['ocean', 'tides'],
            // Upper-case host: the catalog keeps the cleaned (parsed) form.
            iconUrl: 'https://Icons.Harbour-Tides.example/logo.png',
            extensions: { ...declareDiscoveryExtension({ input: { port: 'Dover' }, inputSchema: { properties: { port: { type: 'string' } } } }) },
          },
        },
        resourceServer,
      ),
    );
    seller.get('/tides/:port', (_req, res) => void res.json({ high: '06:12' }));
    const port = await listen(seller);

    const url = `http://127.0.0.1:${port}/tides/dover`;
    const announced = (await request(h.app).post('/discovery/announce').send({ resource: url }).expect(202)).body;
    const state = await waitFor(async () => {
      const res = await request(h.app).get('/discovery/announce/status').query({ id: announced.id });
      return res.body.status === 'pending' ? undefined : res.body;
    }, 20_000);
    assert.equal(state.status, 'listed', JSON.stringify(state));
    const listing = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${announced.id}`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.equal(listing.describe.title, 'Harbour Tides');
    assert.deepEqual(listing.describe.tags, ['ocean', 'tides']);
    assert.equal(listing.describe.iconUrl, 'https://icons.harbour-tides.example/logo.png');
    // The bazaar routeTemplate of the same 402 made the listing the template.
    assert.equal(listing.resource, `http://127.0.0.1:${port}/tides/{port}`);

    // A buyer searching by the title finds it, and the Bazaar surface names it as x402 clients read it.
    let last: unknown;
    const found = await waitFor(async () => {
      const res = await request(h.app).get('/discovery/search').query({ q: 'Harbour Tides' });
      last = res.body;
      return (res.body.results as Array<{ id: string }> | undefined)?.find((r) => r.id === listing.id);
    }).catch(() => assert.fail(`not found by its title: ${JSON.stringify(last)}`));
    assert.ok(found);
    const bazaar = await request(h.app).get('/x402/discovery/resources').query({ limit: 100 }).expect(200);
    const item = (bazaar.body.items as Array<Record<string, unknown>>).find((i) => i.resource === listing.resource);
    assert.ok(item, 'listed on the Bazaar surface');
    assert.equal(item.serviceName, 'Harbour Tides');
    assert.equal(item.iconUrl, 'https://icons.harbour-tides.example/logo.png');
    assert.deepEqual(item.tags, ['ocean', 'tides']);
  });

  describe('seller publish', () => {
    let token: string;
    before(async () => {
      token = (await h.container.publishing.tokens.issue(['tools.harbour.example'], 'harbour')).secret;
    });

    const tool = {
      type: 'mcp',
      resource: 'mcp://tools.harbour.example/tide_times',
      name: 'tide_times',
      description: 'Tide times for a harbour',
      inputSchema: { type: 'object', properties: { port: { type: 'string' } } },
      payment: { scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '1000', payTo: '0x4444444444444444444444444444444444444444' },
    };

    it('reads serviceName as the title and keeps a cleaned iconUrl', async () => {
      const res = await request(h.app)
        .post('/discovery/publish')
        .set('Authorization', `Bearer ${token}`)
        .send({ ...tool, serviceName: 'Harbour Tides', iconUrl: ' https://Icons.Harbour-Tides.example/tool.png ' })
        .expect(201);
      assert.equal(res.body.title, 'Harbour Tides');
      assert.equal(res.body.iconUrl, 'https://icons.harbour-tides.example/tool.png');
      const stored = await waitFor(async () => {
        const got = await request(h.app).get(`/discovery/resources/${res.body.id}`);
        return got.status === 200 ? got.body : undefined;
      });
      assert.equal(stored.title, 'Harbour Tides');
      assert.equal(stored.iconUrl, 'https://icons.harbour-tides.example/tool.png');
    });

    it('refuses an icon that is not http(s) and a serviceName x402 would drop, naming both fields', async () => {
      const res = await request(h.app)
        .post('/discovery/publish')
        .set('Authorization', `Bearer ${token}`)
        .send({ ...tool, serviceName: 'Harbour Tides, the best tide tables on the coast', iconUrl: 'javascript:alert(1)' })
        .expect(400);
      assert.equal(res.headers['content-type']?.split(';')[0], 'application/problem+json');
      const paths = (res.body.errors as Array<{ path: string }>).map((e) => e.path).sort();
      assert.deepEqual(paths, ['iconUrl', 'serviceName']);
    });
  });
});
