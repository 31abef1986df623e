import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { probingGateway, type ProbingGateway } from './support/probingGateway.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { answers, startServer, v1Challenge, v2Challenge, type LocalServer } from './support/sellers.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { storesFor } from '../src/store/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('removal: re-probes and staleness (injectable clock)', function () {
  this.timeout(30_000);
  let h: Harness;
  let seller: LocalServer;
  let clock: number;
  /** A second announce module on the same Redis and index, driven by a fake clock. */
  let later: ProbingGateway;

  before(async () => {
    seller = await startServer();
    h = await startHarness({
      PROBE_ALLOW: `127.0.0.1:${seller.port}`,
      PROBE_TIMEOUT_MS: '300',
      PROBE_MIN_INTERVAL_MS: '0',
      RATE_LIMIT_ANNOUNCE: 'off',
      STALE_AFTER_DAYS: '30',
      // Health checks are re-probes; at a daily idle interval these tests see the daily re-probe period alone.
      HEALTH_IDLE_INTERVAL_MS: String(DAY),
    });
    later = probingGateway(h.config, h.logger, {
      stores: storesFor(h, h.config),
      writer: h.container.catalog.writer,
      reader: h.container.catalog.reader,
      now: () => clock,
    });
  });

  after(async () => {
    await h?.close();
    await seller?.close();
  });

  async function listed(path: string): Promise<string> {
    seller.route(path, answers.v1(() => v1Challenge(seller.url(path))));
    const { id } = (await request(h.app).post('/discovery/announce').send({ resource: seller.url(path) }).expect(202)).body;
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 200, 10_000, 50);
    return id;
  }

  const status = async (id: string) => (await request(h.app).get('/discovery/announce/status').query({ id }).expect(200)).body;
  const gone = (id: string) => waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 404, 60_000, 100);
  const inList = async (id: string) => {
    const res = await request(h.app).get('/discovery/resources').query({ limit: 100 }).expect(200);
    return (res.body.results as Array<{ id: string }>).some((r) => r.id === id);
  };

  it('a listed resource is re-probed about a day later and removed when it no longer answers 402', async () => {
    const id = await listed('/reprobe/gone');
    const before = await status(id);
    const next = Date.parse(before.nextProbeAt);
    assert.ok(next > Date.now() + 0.85 * DAY && next < Date.now() + 1.15 * DAY, `next re-probe ${before.nextProbeAt}`);

    clock = Date.now() + 12 * HOUR;
    assert.equal(await later.probeWorker.runDue(), 0, 'nothing is due half a day later');

    seller.route('/reprobe/gone', answers.status(200));
    clock = Date.now() + 27 * HOUR;
    assert.ok((await later.probeWorker.runDue()) >= 1);
    const after = await status(id);
    assert.equal(after.status, 'rejected');
    assert.equal(after.reason, 'not_402');
    await gone(id);
    await waitFor(async () => !(await inList(id)), 60_000, 200);
  });

  it('transient failures remove a listing only after PROBE_FAILURES_BEFORE_REMOVAL (3) in a row', async () => {
    const id = await listed('/reprobe/flaky');
    seller.route('/reprobe/flaky', answers.status(503));
    clock = Date.now() + 27 * HOUR;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      assert.equal(await later.probeWorker.runDue(), 1);
      const state = await status(id);
      assert.equal(state.status, 'listed', `still listed after ${attempt} failure(s)`);
      assert.equal(state.reason, 'not_402');
      clock += 6 * 60_000; // transient failures are retried after 5 minutes
    }
    assert.equal(await later.probeWorker.runDue(), 1);
    assert.equal((await status(id)).status, 'rejected');
    await gone(id);
  });

  it('a successful re-probe keeps the listing and refreshes lastSeen; a wrong announcement does not remove it', async () => {
    const id = await listed('/reprobe/healthy');
    const path = '/reprobe/healthy';
    // Anyone may announce a listed URL with other requirements: that is refused, the listing stays.
    clock = Date.now() + 60_000;
    await later.service.announce({ resource: seller.url(path), challenge: v1Challenge(seller.url(path), '1') });
    await later.probeWorker.runDue();
    const state = await status(id);
    assert.equal(state.status, 'listed');
    assert.equal(state.reason, 'requirements_mismatch');
    assert.equal((await request(h.app).get(`/discovery/resources/${id}`)).status, 200);

    clock = Date.now() + 27 * HOUR;
    await later.probeWorker.runDue();
    const doc = await waitFor(async () => {
      const found = await h.container.catalog.reader.get(id);
      return found && Date.parse(found.lastSeen) >= clock - 1000 ? found : undefined;
    });
    assert.equal(doc.removed, false);
  });

  describe('an announce of a listed id with another URL of that id cannot delist it', () => {
    /** Requests the victim seller saw (path and query), so a test can tell which URL was probed. */
    const hits: string[] = [];
    const probed = async (id: string, since: string) =>
      waitFor(async () => {
        const state = await status(id);
        return Date.parse(state.lastProbedAt) > Date.parse(since) ? state : undefined;
      }, 10_000, 50);
    const searchable = async (id: string, q: string) =>
      ((await request(h.app).get('/discovery/search').query({ q }).expect(200)).body.results as Array<{ id: string }>).some((r) => r.id === id);

    before(() => {
      // The victim answers 402 on its URL; the same id with a query string, or another concrete
      // path of its routeTemplate, answers 404 (400 would do as well).
      seller.route('/victim/api', (req, res) => {
        hits.push(req.url!);
        if (req.url !== '/victim/api') return void res.writeHead(404).end();
        answers.v2(() => v2Challenge(seller.url('/victim/api'), { describe: { title: 'Quokka census', description: 'Counts quokkas' } }))(req, res);
      });
      seller.route('/victim/users/*', (req, res) => {
        hits.push(req.url!);
        if (req.url !== '/victim/users/42') return void res.writeHead(404).end();
        answers.v2(() => v2Challenge(seller.url('/victim/users/42'), { routeTemplate: '/victim/users/:id', describe: { title: 'Wombat registry', description: 'Wombats by id' } }))(req, res);
      });
    });

    const victims: Array<[string, { resource: string; routeTemplate?: string }, { resource: string; routeTemplate?: string }, string, string]> = [
      ['a query string', { resource: '/victim/api' }, { resource: '/victim/api?x=1' }, '/victim/api', 'quokka census'],
      [
        'another concrete path of its routeTemplate',
        { resource: '/victim/users/42', routeTemplate: '/victim/users/:id' },
        { resource: '/victim/users/doesnotexist', routeTemplate: '/victim/users/:id' },
        '/victim/users/42',
        'wombat registry',
      ],
    ];
    for (const [what, victim, attack, verifiedPath, q] of victims) {
      it(`${what}: the listing stays listed and searchable, and re-probes keep fetching the verified URL`, async () => {
        const { id } = (await request(h.app).post('/discovery/announce').send({ ...victim, resource: seller.url(victim.resource) }).expect(202)).body;
        await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 200, 10_000, 50);
        const listedState = await status(id);
        assert.equal(listedState.status, 'listed');

        const from = hits.length;
        const res = await request(h.app).post('/discovery/announce').send({ ...attack, resource: seller.url(attack.resource) }).expect(202);
        assert.equal(res.body.id, id, 'the attacker hits the same listing id');
        const after = await probed(id, listedState.lastProbedAt);
        assert.equal(after.status, 'listed', JSON.stringify(after));
        assert.equal(after.resource, seller.url(verifiedPath));
        assert.deepEqual(hits.slice(from), [verifiedPath], 'the probe fetched the verified URL, not the announced one');
        assert.equal((await request(h.app).get(`/discovery/resources/${id}`)).status, 200);
        assert.equal((await h.container.catalog.reader.get(id))?.removed, false);
        await waitFor(() => searchable(id, q), 10_000, 100);

        // The next day's re-probe fetches the verified URL too, and the listing stays.
        const reprobeFrom = hits.length;
        clock = Date.now() + 27 * HOUR;
        assert.ok((await later.probeWorker.runDue()) >= 1);
        assert.deepEqual(hits.slice(reprobeFrom), [verifiedPath]);
        const reprobed = await status(id);
        assert.equal(reprobed.status, 'listed');
        assert.equal(reprobed.resource, seller.url(verifiedPath));
        assert.equal((await request(h.app).get(`/discovery/resources/${id}`)).status, 200);
        assert.ok(await searchable(id, q));
      });
    }

    it('defence in depth: a listed record whose URL was replaced anyway is not delisted by that URL failing', async () => {
      // The victim listed by the first case, its record left as an announce before this fix could
      // leave it: holding the attacker's URL.
      const id = httpListingId(seller.url('/victim/api'), 'GET');
      assert.equal((await status(id)).status, 'listed');
      await h.redis.hset(redisKeys(h.config.redisPrefix).probeRecord(id), 'resource', seller.url('/victim/api?x=1'));
      const due = Date.now() + 28 * HOUR;
      await h.redis.zadd(redisKeys(h.config.redisPrefix).probeDue, due, id);
      clock = due + 1000;
      const from = hits.length;
      assert.ok((await later.probeWorker.runDue()) >= 1);
      assert.deepEqual(hits.slice(from), ['/victim/api?x=1']);
      const state = await status(id);
      assert.equal(state.status, 'listed');
      assert.equal(state.reason, 'resource_mismatch');
      assert.match(state.detail, /404/);
      assert.equal(state.resource, seller.url('/victim/api'), 'back to the verified URL');
      assert.equal((await request(h.app).get(`/discovery/resources/${id}`)).status, 200);
      assert.equal((await h.container.catalog.reader.get(id))?.removed, false);

      const reprobeFrom = hits.length;
      clock = due + 2 * DAY;
      await later.probeWorker.runDue();
      assert.ok(hits.slice(reprobeFrom).includes('/victim/api'));
      assert.ok(!hits.slice(reprobeFrom).includes('/victim/api?x=1'));
      assert.equal((await status(id)).status, 'listed');
    });
  });

  it('a seller that starts declaring a routeTemplate gets one templated listing instead of the concrete one', async () => {
    const concrete = await listed('/tmpl/paris');
    seller.route('/tmpl/paris', answers.v2(() => v2Challenge(seller.url('/tmpl/paris'), { routeTemplate: '/tmpl/:city' })));
    clock = Date.now() + 27 * HOUR;
    await later.probeWorker.runDue();
    const state = await status(concrete);
    assert.equal(state.status, 'listed');
    assert.equal(state.announcedId, concrete);
    assert.notEqual(state.id, concrete);
    await waitFor(async () => (await h.container.catalog.reader.get(concrete))?.removed === true);
    const templated = await waitFor(async () => (await request(h.app).get(`/discovery/resources/${state.id}`)).body?.resource);
    assert.equal(templated, seller.url('/tmpl/{city}'));
    // The id the announce answered still leads to the listing.
    assert.equal((await request(h.app).get(`/discovery/resources/${concrete}`).expect(200)).body.id, state.id);
  });

  it('probes to one host are paced (PROBE_HOST_RATE): the rest wait for the next second', async () => {
    // A host of its own, so re-probes of the other tests' listings do not share its budget.
    const own = await startServer();
    try {
      const announce = { ...h.config.announce, probeHostRatePerSecond: 2, probeAllow: [`127.0.0.1:${own.port}`] };
      const paced = probingGateway({ ...h.config, announce }, h.logger, {
        stores: storesFor(h, h.config),
        writer: h.container.catalog.writer,
        reader: h.container.catalog.reader,
        now: () => clock,
      });
      // Far enough ahead that the real-clock worker of the harness never sees these as due.
      clock = Date.now() + 10 * DAY;
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        own.route(`/paced/${n}`, answers.v1(() => v1Challenge(own.url(`/paced/${n}`))));
        ids.push((await paced.service.announce({ resource: own.url(`/paced/${n}`) })).id);
      }
      await paced.probeWorker.runDue();
      const states = await Promise.all(ids.map(status));
      assert.equal(states.filter((s) => s.status === 'listed').length, 2);
      const waiting = states.find((s) => s.status === 'pending')!;
      assert.ok(Date.parse(waiting.nextProbeAt) > clock, 'postponed, not dropped');
      clock += 2500;
      await paced.probeWorker.runDue();
      assert.equal((await status(waiting.id)).status, 'listed');
    } finally {
      await own.close();
    }
  });

  it('listings not seen for 30 days are expired as stale; fresher ones stay', async () => {
    const writer = h.container.catalog.writer;
    const now = Date.now();
    const payment = { scheme: 'exact' as const, network: 'eip155:84532', asset: '0xabc', amount: '10' };
    const old = await writer.upsert({ type: 'http', resource: 'https://stale.example.com/old', payment }, { source: 'traffic', seenAt: new Date(now - 31 * DAY) });
    const fresh = await writer.upsert({ type: 'http', resource: 'https://stale.example.com/fresh', payment }, { source: 'traffic', seenAt: new Date(now - 29 * DAY) });
    const announced = await listed('/stale/announced');
    await waitFor(async () => (await h.container.catalog.reader.getMany([old.id, fresh.id])).size === 2);
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });

    clock = now;
    const removed = await later.staleness.sweep();
    assert.ok(removed.includes(old.id));
    assert.ok(!removed.includes(fresh.id));
    assert.ok(!removed.includes(announced));
    await waitFor(async () => (await h.container.catalog.reader.get(old.id))?.removedReason === 'stale');
    assert.equal((await h.container.catalog.reader.get(fresh.id))?.removed, false);

    // A month later nobody has reported the announced resource either.
    clock = now + 31 * DAY;
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    assert.ok((await later.staleness.sweep()).includes(announced));
    const state = await status(announced);
    assert.equal(state.status, 'rejected');
    assert.equal(state.reason, 'stale');
    await gone(announced);
  });
});
