import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { announce, listing, settled } from './support/announcing.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { answers, encodeHeader, startServer, v1Challenge, v2Challenge, type LocalServer } from './support/sellers.js';

describe('announce: probe, status, listing by id', function () {
  this.timeout(30_000);
  let h: Harness;
  let seller: LocalServer;
  let outsider: LocalServer;

  before(async () => {
    seller = await startServer({
      '/v1/weather': answers.v1(() => v1Challenge(seller.url('/v1/weather'))),
      '/v1/declared': answers.v1(() => v1Challenge(seller.url('/v1/declared'), '4000')),
      '/v1/mismatch': answers.v1(() => v1Challenge(seller.url('/v1/mismatch'), '1000')),
      '/v2/forecast/*': answers.v2(() => v2Challenge(seller.url('/v2/forecast/paris'), { routeTemplate: '/v2/forecast/:city' })),
      '/v2/described': answers.v2(() =>
        v2Challenge(seller.url('/v2/described'), { describe: { title: 'Tide tables', description: 'High and low tides', tags: ['ocean'], inputs: { port: 'string' } } }),
      ),
      '/ok': answers.status(200),
      '/moved': answers.status(302, { Location: 'http://169.254.169.254/latest/meta-data' }),
      '/slow': answers.hang(),
      '/huge': answers.big402(200 * 1024),
      '/garbage': (_req, res) => void res.writeHead(402, { 'Content-Type': 'text/plain' }).end('pay me'),
      '/wrong-scheme': answers.v1(() => ({ x402Version: 1, accepts: [{ scheme: 'barter', network: 'base-sepolia', maxAmountRequired: '1', asset: 'x', payTo: 'y' }] })),
      '/too-expensive': answers.v1(() => v1Challenge(seller.url('/too-expensive'), '9999999999999999999')),
    });
    outsider = await startServer({ '/paid': answers.v1(() => v1Challenge(outsider.url('/paid'))) });
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${seller.port}`, PROBE_TIMEOUT_MS: '400', RATE_LIMIT_ANNOUNCE: 'off' });
  });

  after(async () => {
    await h?.close();
    await Promise.all([seller?.close(), outsider?.close()]);
  });

  describe('accepts a real 402', () => {
    it('v1 JSON body, nothing announced but the URL: lists what the 402 says', async () => {
      const url = seller.url('/v1/weather');
      const { id, status } = await announce(h.app, { resource: url });
      assert.equal(id, httpListingId(url, 'GET'));
      assert.equal(status, 'pending');
      const state = await settled(h.app, id);
      assert.equal(state.status, 'listed');
      assert.ok(state.lastProbedAt && !Number.isNaN(Date.parse(state.lastProbedAt)));
      const found = await listing(h.app, id);
      assert.equal(found.type, 'http');
      assert.equal(found.resource, url);
      assert.deepEqual(found.payment, {
        scheme: 'exact',
        network: 'eip155:84532',
        asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        amount: '1000',
        payTo: '0x1111111111111111111111111111111111111111',
        maxTimeoutSeconds: 60,
      });
      assert.equal(found.describe.description, 'Current weather for a city');
      assert.deepEqual(found.describe.inputs, { city: 'string' });
    });

    it('v2 PAYMENT-REQUIRED header announced as the header value, with bazaar routeTemplate', async () => {
      const url = seller.url('/v2/forecast/paris');
      const challenge = encodeHeader(v2Challenge(url, { routeTemplate: '/v2/forecast/:city' }));
      const { id } = await announce(h.app, { resource: url, challenge });
      assert.equal(id, httpListingId(url, 'GET', '/v2/forecast/:city'));
      assert.equal((await settled(h.app, id)).status, 'listed');
      const found = await listing(h.app, id);
      assert.equal(found.resource, seller.url('/v2/forecast/{city}'));
      assert.equal(found.payment.amount, '2500');
      assert.equal(found.payment.network, 'eip155:84532');
      assert.deepEqual(found.describe.tags, ['weather', 'forecast']);
      assert.deepEqual(found.describe.inputs, { days: 'integer' });
      // The concrete URL finds the templated listing's status too.
      const byUrl = await request(h.app).get('/discovery/announce/status').query({ resource: url }).expect(200);
      assert.equal(byUrl.body.id, id);
    });

    it('v1 challenge announced as an object that matches what is served', async () => {
      const url = seller.url('/v1/declared');
      const { id } = await announce(h.app, { resource: url, method: 'GET', challenge: v1Challenge(url, '4000') });
      assert.equal((await settled(h.app, id)).status, 'listed');
      assert.equal((await listing(h.app, id)).payment.amount, '4000');
    });

    it('the SPEC 2.4 describe block carried in the 402 becomes the listing describe', async () => {
      const { id } = await announce(h.app, { resource: seller.url('/v2/described') });
      assert.equal((await settled(h.app, id)).status, 'listed');
      assert.deepEqual((await listing(h.app, id)).describe, {
        title: 'Tide tables',
        description: 'High and low tides',
        tags: ['ocean'],
        inputs: { port: 'string' },
      });
      // And it is searchable by what it declared.
      await waitFor(async () => {
        const res = await request(h.app).get('/discovery/search').query({ q: 'tide tables' }).expect(200);
        return (res.body.results as Array<{ id: string }>).some((r) => r.id === id);
      }, 10_000, 100);
    });
  });

  describe('refuses, and the status says why', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/ok', 'not_402', /200/],
      ['/nowhere', 'not_402', /404/],
      ['/moved', 'redirect', /302/],
      ['/slow', 'unreachable', /no answer/],
      ['/huge', 'body_too_large', /limit|exceeds/],
      ['/garbage', 'invalid_challenge', /JSON/],
      ['/wrong-scheme', 'invalid_challenge', /barter/],
      ['/too-expensive', 'invalid_listing', /amount/],
    ];
    for (const [path, reason, detail] of cases) {
      it(`${path}: rejected with ${reason}`, async () => {
        const { id } = await announce(h.app, { resource: seller.url(path) });
        const state = await settled(h.app, id);
        assert.equal(state.status, 'rejected');
        assert.equal(state.reason, reason);
        assert.match(state.detail!, detail);
        assert.ok(state.lastProbedAt);
        await request(h.app).get(`/discovery/resources/${id}`).expect(404);
      });
    }

    it('requirements that differ from what was announced: requirements_mismatch, nothing listed', async () => {
      const url = seller.url('/v1/mismatch');
      const { id } = await announce(h.app, { resource: url, challenge: v1Challenge(url, '999') });
      const state = await settled(h.app, id);
      assert.equal(state.status, 'rejected');
      assert.equal(state.reason, 'requirements_mismatch');
      assert.match(state.detail!, /999/);
      const res = await request(h.app).get(`/discovery/resources/${id}`).expect(404);
      assert.equal(res.body.code, 'not_found');
    });

    const blocked = () => [
      outsider.url('/paid'), // loopback, port not allow-listed
      `http://localhost:${outsider.port}/paid`, // a name that resolves to loopback
      `http://[::ffff:127.0.0.1]:${outsider.port}/paid`, // v4-mapped v6
      `http://[::1]:${outsider.port}/paid`,
      'http://10.1.2.3/paid',
      'http://192.168.1.1/paid',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/paid',
      'http://0.0.0.0/paid',
      `http://2130706433:${outsider.port}/paid`, // 127.0.0.1 written as one decimal number
      `http://0x7f.1:${outsider.port}/paid`, // and in hex shorthand
    ];
    it('private, loopback, link-local and unique-local addresses that are not allow-listed: blocked_address', async () => {
      for (const url of blocked()) {
        const { id } = await announce(h.app, { resource: url });
        const state = await settled(h.app, id);
        assert.equal(state.status, 'rejected', url);
        assert.equal(state.reason, 'blocked_address', `${url}: ${state.detail}`);
      }
    });

    it('probe results are counted for operators on /metrics', async () => {
      const res = await request(h.app).get('/metrics').expect(200);
      assert.match(res.text, /announce_probes_total\{result="rejected",reason="not_402"\} [1-9]/);
      assert.match(res.text, /announce_probes_total\{result="listed",reason="ok"\} [1-9]/);
      assert.match(res.text, /announce_probe_backlog \d+/);
    });

    it('a name that does not resolve: dns_failure', async () => {
      const { id } = await announce(h.app, { resource: 'http://no-such-host.invalid/paid' });
      const state = await settled(h.app, id);
      assert.equal(state.reason, 'dns_failure');
    });
  });

  describe('sellers built with the x402 packages', () => {
    const servers: Array<{ close(): void }> = [];
    after(() => {
      for (const s of servers) s.close();
    });

    async function listen(app: express.Express): Promise<number> {
      return new Promise((resolve) => {
        const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
        servers.push(server);
      });
    }

    it('@x402/express (v2 header, bazaar extension) and x402-express (v1 body), using this service as facilitator, are listed', async function () {
      // A CIDR allow-list this time: any loopback port. The sellers ask this service's /supported
      // at start-up (nobody pays in this test).
      const local = await startHarness({ PROBE_ALLOW: '127.0.0.1/32', RATE_LIMIT_ANNOUNCE: 'off' });
      const facilitatorUrl = `http://127.0.0.1:${await listen(local.app)}`;
      const { paymentMiddleware, x402ResourceServer } = await import('@x402/express');
      const { ExactEvmScheme } = await import('@x402/evm/exact/server');
      const { HTTPFacilitatorClient } = await import('@x402/core/server');
      const { declareDiscoveryExtension } = await import('@x402/extensions/bazaar');
      const v2 = express();
      const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register('eip155:84532', new ExactEvmScheme());
      v2.use(
        paymentMiddleware(
          {
            'GET /quotes/:symbol': {
              accepts: { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: '0x2222222222222222222222222222222222222222' },
              description: 'Stock quote by ticker symbol',
              extensions: { ...declareDiscoveryExtension({ input: { symbol: 'AAPL' }, inputSchema: { properties: { symbol: { type: 'string' } } } }) },
            },
          },
          resourceServer,
        ),
      );
      v2.get('/quotes/:symbol', (_req, res) => void res.json({ price: 1 }));
      const v2Port = await listen(v2);

      const { paymentMiddleware: v1Middleware } = await import('x402-express');
      const v1 = express();
      v1.use(
        v1Middleware(
          '0x3333333333333333333333333333333333333333',
          { '/news': { price: '$0.002', network: 'base-sepolia', config: { description: 'Latest headlines' } } },
          { url: facilitatorUrl as `${string}://${string}` },
        ) as unknown as express.RequestHandler,
      );
      v1.get('/news', (_req, res) => void res.json({ news: [] }));
      const v1Port = await listen(v1);

      try {
        const v2Url = `http://127.0.0.1:${v2Port}/quotes/AAPL`;
        const v2Id = (await request(local.app).post('/discovery/announce').send({ resource: v2Url }).expect(202)).body.id;
        const v1Url = `http://127.0.0.1:${v1Port}/news`;
        const v1Id = (await request(local.app).post('/discovery/announce').send({ resource: v1Url }).expect(202)).body.id;
        for (const id of [v2Id, v1Id]) {
          const state = await waitFor(async () => {
            const res = await request(local.app).get('/discovery/announce/status').query({ id });
            return res.body.status === 'pending' ? undefined : res.body;
          });
          assert.equal(state.status, "listed", JSON.stringify(state));
        }
        const quote = await waitFor(async () => {
          const res = await request(local.app).get(`/discovery/resources/${v2Id}`);
          return res.status === 200 ? res.body : undefined;
        });
        // The 402 declared routeTemplate /quotes/:symbol: the listing is the template, and the
        // announce's id still leads to it.
        assert.equal(quote.resource, `http://127.0.0.1:${v2Port}/quotes/{symbol}`);
        assert.equal(quote.id, httpListingId(v2Url, 'GET', '/quotes/:symbol'));
        const state = await request(local.app).get('/discovery/announce/status').query({ id: quote.id }).expect(200);
        assert.equal(state.body.announcedId, v2Id);
        assert.equal(quote.payment.amount, '10000');
        assert.equal(quote.payment.network, 'eip155:84532');
        assert.equal(quote.describe.description, 'Stock quote by ticker symbol');
        assert.equal(quote.describe.inputs.symbol, 'string');
        const news = await waitFor(async () => {
          const res = await request(local.app).get(`/discovery/resources/${v1Id}`);
          return res.status === 200 ? res.body : undefined;
        });
        assert.equal(news.payment.amount, '2000');
        assert.equal(news.payment.payTo, '0x3333333333333333333333333333333333333333');
      } finally {
        await local.close();
      }
    });
  });
});
