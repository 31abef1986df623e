/**
 * Reach (issue 25) with real parts: a CDP-shaped upstream fixture (cursor paging, quality,
 * serviceName, tags, ETags), a garbage and an unreachable upstream, a second instance of this
 * service federating from the first's /x402 Bazaar surface, and an @x402/express seller announced
 * by its origin, whose /.well-known/x402 names three resources of which one does not answer 402.
 * Nothing is listed until the service's own probe saw a valid 402.
 */
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { listing, settled } from './support/announcing.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { listen, type Listening } from './support/sdkWorld.js';

describe('federation: upstream catalogs and site manifests', function () {
  this.timeout(60_000);
  let sellers: LocalServer;
  let upstream: Listening;
  let h: Harness;
  let service: Listening;
  /** Requests the CDP fixture received, and the most it ever had in flight at once. */
  const seen: Array<{ url: string; ifNoneMatch?: string }> = [];
  let inFlight = 0;
  /** The upstream stops naming /tides (and changes its ETag). */
  let tidesGone = false;
  let slowPagesServed = () => 0;
  let maxInFlight = 0;

  const cdpUrl = () => `${upstream.url}/platform/v2/x402/discovery/resources`;
  const paid = (path: string) => sellers.url(path);

  before(async () => {
    sellers = await startServer({
      '/forecast': answers.v2(() => v2Challenge(sellers.url('/forecast'), { describe: { title: 'Forecast', tags: ['weather'] } })),
      '/tides': answers.v2(() => v2Challenge(sellers.url('/tides'), { amount: '4000' })),
    });
    const fixture = express();
    fixture.get('/platform/v2/x402/discovery/resources', (req, res) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : '';
      seen.push({ url: req.originalUrl, ...(req.headers['if-none-match'] ? { ifNoneMatch: String(req.headers['if-none-match']) } : {}) });
      const etag = `"page-${cursor || 'first'}${tidesGone ? '-v2' : ''}"`;
      setTimeout(() => {
        inFlight -= 1;
        if (req.headers['if-none-match'] === etag) return void res.status(304).end();
        res.setHeader('ETag', etag);
        if (!cursor) {
          res.json({
            x402Version: 2,
            items: [
              {
                resource: paid('/forecast'),
                type: 'http',
                x402Version: 2,
                accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '1', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x1' }],
                lastUpdated: '2026-11-20T10:00:00.000Z',
                serviceName: 'Sky Data',
                tags: ['premium', 'best-ever'],
                quality: { score: 0.93, uptime: 0.99 },
                metadata: { icon: 'https://sky.example/icon.png' },
              },
              // A claim on a private address: the probe refuses it, nothing is listed.
              { resource: 'http://10.0.0.7/admin', type: 'http', x402Version: 2, accepts: [], lastUpdated: 1763632800 },
            ],
            pagination: { limit: 2, nextCursor: 'p2' },
          });
          return;
        }
        res.json({
          x402Version: 2,
          items: [
            ...(tidesGone ? [] : [{ resource: paid('/tides'), type: 'http', x402Version: 1, accepts: [{ outputSchema: { input: { method: 'GET' } } }], lastUpdated: 1763632800 }]),
            { resource: 'mcp://tools.example/get_quote', type: 'mcp', x402Version: 2, accepts: [] },
            // Loopback, but not the port PROBE_ALLOW names.
            { resource: 'http://127.0.0.2:9/secret', type: 'http', x402Version: 2, accepts: [], lastUpdated: 'yesterday' },
          ],
          pagination: { limit: 2 },
        });
      }, 20);
    });
    fixture.get('/garbage/discovery/resources', (_req, res) => void res.type('html').send('<html>maintenance</html>'));
    let slowPages = 0;
    fixture.get('/slow/discovery/resources', (req, res) => {
      slowPages += 1;
      const offset = Number(req.query.offset ?? 0);
      setTimeout(() => res.json({ items: [{ resource: paid('/forecast') }], pagination: { limit: 1, offset, total: 100 } }), 100);
    });
    slowPagesServed = () => slowPages;
    fixture.get('/busy/discovery/resources', (_req, res) => void res.status(429).set('Retry-After', '7200').json({ error: 'slow down' }));
    upstream = await listen(fixture);
    h = await startHarness({
      PROBE_ALLOW: `127.0.0.1/32`,
      RATE_LIMIT_ANNOUNCE: 'off',
      REACH_UPSTREAMS: `cdp=${cdpUrl()},garbage=${upstream.url}/garbage/discovery/resources,down=http://127.0.0.1:1/discovery/resources,busy=${upstream.url}/busy/discovery/resources,slow=${upstream.url}/slow/discovery/resources`,
      REACH_TICK_MS: '3600000',
      REACH_TIMEOUT_MS: '1000',
      REACH_PAGE_SIZE: '2',
    });
    service = await listen(h.app);
  });

  after(async () => {
    await h?.close();
    await Promise.all([sellers?.close(), upstream?.close(), service?.close()]);
  });

  it('a CDP-shaped upstream: pages by cursor, one request at a time; only what answers a valid 402 is listed, with the upstream as provenance', async () => {
    const reports = await h.container.federation.poller.pass(true, ['cdp']);
    assert.equal(reports.cdp?.ok, true, JSON.stringify(reports.cdp));
    assert.equal(reports.cdp?.pages, 2);
    assert.deepEqual(reports.cdp?.counts, { queued: 4, pending: 0, verified: 0, refused: 0, skipped: 1, invalid: 0 });
    assert.equal(maxInFlight, 1, 'never two requests to the upstream at once');
    assert.match(seen[1]!.url, /cursor=p2/);

    const forecastId = httpListingId(paid('/forecast'), 'GET');
    const tidesId = httpListingId(paid('/tides'), 'GET');
    assert.equal((await settled(h.app, forecastId)).status, 'listed');
    assert.equal((await settled(h.app, tidesId)).status, 'listed');
    const forecast = await listing(h.app, forecastId);
    // The listing is what the 402 says; the upstream's words are its claim, apart, less those the
    // 402 contradicts (issue 43: its own title and tags; the icon it does not name stays claimed).
    assert.deepEqual(forecast.describe.tags, ['weather']);
    assert.equal(forecast.payment.amount, '2500');
    assert.equal(forecast.provenance.discovered.source, 'upstream');
    assert.equal(forecast.provenance.discovered.name, 'cdp');
    assert.equal(forecast.provenance.discovered.url, cdpUrl());
    assert.ok(!Number.isNaN(Date.parse(forecast.provenance.discovered.firstSeen)));
    assert.equal(forecast.describe.title, 'Forecast');
    assert.deepEqual(forecast.provenance.discovered.claims, {
      icon: 'https://sky.example/icon.png',
      quality: { score: 0.93, uptime: 0.99 },
      lastUpdated: '2026-11-20T10:00:00.000Z',
    });
    const tides = await listing(h.app, tidesId);
    assert.equal(tides.payment.amount, '4000');
    assert.equal(tides.provenance.discovered.claims.lastUpdated, '2025-11-20T10:00:00.000Z', 'epoch seconds read as a date');

    for (const resource of ['http://10.0.0.7/admin', 'http://127.0.0.2:9/secret']) {
      const id = httpListingId(resource, 'GET');
      const state = await settled(h.app, id);
      assert.equal(state.status, 'rejected');
      assert.equal(state.reason, 'blocked_address');
      await request(h.app).get(`/discovery/resources/${id}`).expect(404);
    }
  });

  it('the next crawl asks with the pages\' ETags: unchanged pages cost a 304 and queue nothing', async () => {
    const before = seen.length;
    const reports = await h.container.federation.poller.pass(true, ['cdp']);
    assert.equal(reports.cdp?.ok, true);
    assert.equal(reports.cdp?.notModified, 2);
    assert.equal(reports.cdp?.counts.queued, 0);
    assert.deepEqual(seen.slice(before).map((r) => r.ifNoneMatch), ['"page-first"', '"page-p2"']);
  });

  it('garbage and unreachable upstreams: a clear error state and backoff, no listing removed, no 5xx', async () => {
    const live = httpListingId(paid('/forecast'), 'GET');
    const reports = await h.container.federation.poller.pass(true, ['garbage', 'down', 'busy']);
    assert.equal(reports.garbage?.ok, false);
    assert.match(reports.garbage!.error!, /not JSON/);
    assert.equal(reports.down?.ok, false);
    assert.match(reports.down!.error!, /ECONNREFUSED|refused/i);
    // Not due again until the backoff ran out.
    const again = await h.container.federation.poller.pass(false);
    assert.equal(again.garbage, undefined);
    assert.equal(again.down, undefined);

    const status = await request(h.app).get('/discovery/reach').expect(200);
    const byName = Object.fromEntries(status.body.upstreams.map((u: { name: string }) => [u.name, u]));
    assert.equal(byName.cdp.state, 'ok');
    assert.equal(byName.cdp.lastCrawl.notModified, 2);
    assert.equal(byName.garbage.state, 'error');
    assert.equal(byName.garbage.failures, 1);
    assert.match(byName.garbage.lastError, /not JSON/);
    assert.ok(Date.parse(byName.garbage.nextCrawlAt) > Date.now());
    assert.equal(byName.down.state, 'error');
    // A 429 with Retry-After longer than the backoff: the upstream's wish wins.
    assert.equal(byName.busy.lastError, 'page o:0 answered 429');
    assert.ok(Date.parse(byName.busy.nextCrawlAt) >= Date.now() + 7_000_000, byName.busy.nextCrawlAt);

    const found = await request(h.app).get(`/discovery/resources/${live}`).expect(200);
    assert.equal(found.body.id, live);
    const metrics = (await request(h.app).get('/metrics').expect(200)).text;
    assert.match(metrics, /reach_upstream_state\{upstream="garbage",state="error"\} 1/);
    assert.match(metrics, /reach_upstream_items_total\{upstream="cdp",outcome="queued"\} 4/);
    assert.match(metrics, /reach_upstream_pages_total\{upstream="cdp",result="not_modified"\} 2/);
  });

  it('a second instance federating from this one\'s /x402 surface converges on the same listings', async () => {
    const mirror = await startHarness({
      PROBE_ALLOW: '127.0.0.1/32',
      REACH_UPSTREAMS: `main=${service.url}/x402/discovery/resources`,
      REACH_TICK_MS: '3600000',
    });
    try {
      const ids = async (app: express.Express) => {
        const res = await request(app).get('/x402/discovery/resources').query({ limit: 100 }).expect(200);
        return res.body.items.map((item: { metadata: { id: string } }) => item.metadata.id).sort();
      };
      const expected = await ids(h.app);
      assert.equal(expected.length, 2);
      const report = (await mirror.container.federation.poller.pass(true)).main;
      assert.equal(report?.ok, true, JSON.stringify(report));
      assert.equal(report?.counts.queued, 2);
      await waitFor(async () => JSON.stringify(await ids(mirror.app)) === JSON.stringify(expected), 20_000, 200);
      const copy = await listing(mirror.app, httpListingId(paid('/forecast'), 'GET'));
      const original = await listing(h.app, httpListingId(paid('/forecast'), 'GET'));
      assert.deepEqual(copy.payment, original.payment);
      assert.deepEqual(copy.describe, original.describe);
      assert.equal(copy.provenance.discovered.name, 'main');
      assert.equal(copy.provenance.discovered.url, `${service.url}/x402/discovery/resources`);
    } finally {
      await mirror.close();
    }
  });

  it('a resource the upstream stops naming stays listed until its own probe fails; then today\'s rules remove it', async () => {
    const tidesId = httpListingId(paid('/tides'), 'GET');
    tidesGone = true;
    sellers.route('/tides', answers.status(200));
    const report = (await h.container.federation.poller.pass(true, ['cdp'])).cdp;
    assert.equal(report?.ok, true);
    assert.equal(report?.notModified, 0);
    await request(h.app).get(`/discovery/resources/${tidesId}`).expect(200);
    // Its next health check (run now rather than at its scheduled time) finds no 402.
    await h.container.probing.prober.probe(tidesId);
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${tidesId}`)).status === 404, 15_000, 100);
    const state = (await request(h.app).get('/discovery/announce/status').query({ id: tidesId }).expect(200)).body;
    assert.equal(state.status, 'rejected');
    assert.equal(state.reason, 'not_402');
  });

  it('a stopping service ends a long crawl after the current page, due again at once', async () => {
    const poller = h.container.federation.poller;
    const crawl = poller.pass(true, ['slow']);
    await waitFor(async () => slowPagesServed() >= 2, 10_000, 20);
    await poller.stop();
    const report = (await crawl).slow;
    assert.match(report!.error!, /interrupted/);
    assert.ok(report!.pages < 100, `${report!.pages} pages`);
    const slow = (await request(h.app).get('/discovery/reach').expect(200)).body.upstreams.find((u: { name: string }) => u.name === 'slow');
    assert.equal(slow.failures, 0, 'not a failure of the upstream');
    assert.ok(Date.parse(slow.nextCrawlAt) <= Date.now());
    poller.start();
  });

  describe('announcing an origin reads its manifests', () => {
    let shop: Listening;

    before(async () => {
      const { paymentMiddleware, x402ResourceServer } = await import('@x402/express');
      const { ExactEvmScheme } = await import('@x402/evm/exact/server');
      const { HTTPFacilitatorClient } = await import('@x402/core/server');
      const app = express();
      const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: service.url })).register('eip155:84532', new ExactEvmScheme());
      const accepts = { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: '0x2222222222222222222222222222222222222222' } as const;
      app.get('/.well-known/x402', (_req, res) => void res.json({ version: 1, resources: ['/news', `${shopUrl()}/quotes`, `${shopUrl()}/free`] }));
      app.use(
        paymentMiddleware(
          {
            'GET /news': { accepts, description: 'Latest headlines' },
            'GET /quotes': { accepts: { ...accepts, price: '$0.02' }, description: 'Stock quotes' },
          },
          resourceServer,
        ),
      );
      app.get('/news', (_req, res) => void res.json({ news: [] }));
      app.get('/quotes', (_req, res) => void res.json({ quotes: [] }));
      app.get('/free', (_req, res) => void res.json({ free: true }));
      shop = await listen(app);
    });
    after(async () => shop?.close());
    const shopUrl = () => shop.url;

    it('three resources in /.well-known/x402, one not paid: exactly two listed, the third shows why', async () => {
      const res = await request(h.app).post('/discovery/announce').send({ origin: `${shopUrl()}/some/page?x=1` }).expect(202);
      assert.equal(res.body.origin, shopUrl());
      assert.equal(res.headers.location, `/discovery/announce/status?origin=${encodeURIComponent(shopUrl())}`);
      assert.deepEqual(res.body.manifests.map((m: { outcome: string }) => m.outcome), ['read', 'absent']);
      assert.equal(res.body.manifests[0].shape, 'x402-resources');
      assert.deepEqual(res.body.resources.map((r: { outcome: string }) => r.outcome), ['queued', 'queued', 'queued']);

      const status = await waitFor(async () => {
        const body = (await request(h.app).get('/discovery/announce/status').query({ origin: shopUrl() }).expect(200)).body;
        return body.resources.every((r: { status: string }) => r.status !== 'pending') ? body : undefined;
      }, 20_000, 100);
      const byPath = Object.fromEntries(status.resources.map((r: { resource: string }) => [new URL(r.resource).pathname, r]));
      assert.equal(byPath['/news'].status, 'listed');
      assert.equal(byPath['/quotes'].status, 'listed');
      assert.equal(byPath['/free'].status, 'rejected');
      assert.equal(byPath['/free'].reason, 'not_402');
      assert.match(byPath['/free'].detail, /answered 200/);

      const news = await listing(h.app, byPath['/news'].id);
      assert.equal(news.provenance.discovered.source, 'manifest');
      assert.equal(news.provenance.discovered.url, `${shopUrl()}/.well-known/x402`);
      assert.equal(news.payment.amount, '10000');
      await request(h.app).get(`/discovery/resources/${byPath['/free'].id}`).expect(404);
    });

    it('the seller SDK announces an origin and follows its resources', async () => {
      const { Announcer } = await import('../src/sdk/announcer.js');
      const { ServiceClient } = await import('../src/sdk/serviceClient.js');
      const announcer = new Announcer(new ServiceClient({ serviceUrl: service.url }));
      const answer = await announcer.announceOrigin(shopUrl());
      assert.equal(answer.manifests[0]!.outcome, 'read');
      // Already verified or refused by the announce above: nothing is probed again.
      assert.deepEqual(answer.resources.map((r) => r.outcome).sort(), ['refused', 'verified', 'verified']);
      const status = await announcer.originStatus(shopUrl());
      assert.deepEqual(status.resources.map((r) => r.status).sort(), ['listed', 'listed', 'rejected']);
    });

    it('an origin announce is validated like any other input', async () => {
      for (const body of [{ origin: 'ftp://shop.example' }, { origin: 'https://shop.example', resource: 'https://shop.example/x' }, { origin: 5 }]) {
        const res = await request(h.app).post('/discovery/announce').send(body).expect(400);
        assert.equal(res.body.code, 'invalid_announce');
      }
      await request(h.app).get('/discovery/announce/status').query({ origin: 'https://never.example' }).expect(404);
    });
  });
});
