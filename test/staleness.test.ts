import assert from 'node:assert/strict';
import request from 'supertest';
import { buildAnnouncing, type Announcing } from '../src/ingest/index.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { answers, startServer, v1Challenge, v2Challenge, type LocalServer } from './support/sellers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('removal: re-probes and staleness (injectable clock)', function () {
  this.timeout(30_000);
  let h: Harness;
  let seller: LocalServer;
  let clock: number;
  /** A second announce module on the same Redis and index, driven by a fake clock. */
  let later: Announcing;

  before(async () => {
    seller = await startServer();
    h = await startHarness({
      PROBE_ALLOW: `127.0.0.1:${seller.port}`,
      PROBE_TIMEOUT_MS: '300',
      PROBE_MIN_INTERVAL_MS: '0',
      RATE_LIMIT_ANNOUNCE: 'off',
      STALE_AFTER_DAYS: '30',
    });
    later = buildAnnouncing(h.config, h.logger, {
      elasticsearch: h.elasticsearch,
      redis: h.redis,
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
      const paced = buildAnnouncing({ ...h.config, announce }, h.logger, {
        elasticsearch: h.elasticsearch,
        redis: h.redis,
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
