import assert from 'node:assert/strict';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { announceRoutes } from '../src/http/routes/announce.js';
import { AnnounceService } from '../src/announce/announceService.js';
import { ProbeStore } from '../src/store/redis/probeStore.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { announce, settled } from './support/announcing.js';
import { startHarness, type Harness } from './support/harness.js';
import { answers, startServer, v1Challenge, type LocalServer } from './support/sellers.js';

describe('announce: deduplication, request validation, availability', function () {
  this.timeout(30_000);
  let h: Harness;
  let seller: LocalServer;
  const hits = new Map<string, number>();

  before(async () => {
    seller = await startServer({
      '/counted': (req, res) => {
        hits.set('/counted', (hits.get('/counted') ?? 0) + 1);
        answers.v1(() => v1Challenge(seller.url('/counted')))(req, res);
      },
    });
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${seller.port}`, PROBE_TIMEOUT_MS: '400', RATE_LIMIT_ANNOUNCE: 'off' });
  });

  after(async () => {
    await h?.close();
    await seller?.close();
  });

  describe('repeats are cheap', () => {
    it('a second announce within the interval reuses the first probe', async () => {
      const url = seller.url('/counted');
      const first = await announce(h.app, { resource: url });
      const again = await Promise.all([announce(h.app, { resource: url }), announce(h.app, { resource: `${url}?x=1#frag` })]);
      for (const repeat of again) {
        assert.equal(repeat.id, first.id);
        assert.equal(repeat.deduplicated, true);
      }
      assert.equal((await settled(h.app, first.id)).status, 'listed');
      const later = await announce(h.app, { resource: url });
      assert.equal(later.deduplicated, true);
      assert.equal(later.status, 'listed');
      assert.equal(hits.get('/counted'), 1);
    });
  });

  describe('bad announcements: 400 invalid_announce listing each field', () => {
    const bad: Array<[string, unknown, string]> = [
      ['no resource', {}, 'resource'],
      ['not a URL', { resource: 'not a url' }, 'resource'],
      ['ftp', { resource: 'ftp://example.com/file' }, 'resource'],
      ['credentials', { resource: 'http://user:pw@example.com/x' }, 'resource'],
      ['unknown field', { resource: 'http://example.com/x', price: 1 }, 'price'],
      ['bad method', { resource: 'http://example.com/x', method: 'TRACE' }, 'method'],
      ['challenge not base64', { resource: 'http://example.com/x', challenge: 'not base64!!' }, 'challenge'],
      ['challenge without accepts', { resource: 'http://example.com/x', challenge: { x402Version: 2 } }, 'challenge'],
      ['template that does not fit', { resource: 'http://example.com/a/b', routeTemplate: '/other/:id' }, 'routeTemplate'],
      ['a template as resource', { resource: 'http://example.com/users/{id}' }, 'resource'],
    ];
    for (const [name, body, path] of bad) {
      it(name, async () => {
        const res = await request(h.app).post('/discovery/announce').send(body as object).expect(400);
        assert.equal(res.body.code, 'invalid_announce');
        assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), JSON.stringify(res.body.errors));
      });
    }

    it('status of something never announced: 404; without id or resource: 400', async () => {
      const res = await request(h.app).get('/discovery/announce/status').query({ resource: 'http://example.com/never' }).expect(404);
      assert.equal(res.body.code, 'not_found');
      await request(h.app).get('/discovery/announce/status').expect(400);
      await request(h.app).get('/discovery/announce/status').query({ id: 'x', nope: '1' }).expect(400);
      await request(h.app).get('/discovery/resources/lst_nothing').expect(404);
    });
  });

  it('Redis unreachable: 503 announce_unavailable with Retry-After, not a 500', async () => {
    const down = createRedisClient('redis://127.0.0.1:1', { lazyConnect: true });
    down.on('error', () => {});
    try {
      const store = new ProbeStore(down, 'down:');
      const service = new AnnounceService(h.config.announce, store, h.container.catalog.reader);
      const app = createApp({ config: h.config, logger: h.logger, elasticsearch: h.elasticsearch, redis: down, routers: [announceRoutes({ announce: service, origins: h.container.federation.origins })] });
      const res = await request(app).post('/discovery/announce').send({ resource: 'https://seller.example.com/x' }).expect(503);
      assert.equal(res.body.code, 'announce_unavailable');
      assert.equal(res.headers['retry-after'], '5');
      await request(app).get('/discovery/announce/status').query({ id: 'lst_000000000000000000000000' }).expect(503);
    } finally {
      down.disconnect();
    }
  });
});
