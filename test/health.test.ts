/**
 * Active health (issue 13 item 1): listed HTTP resources are re-checked without payment on the
 * probe path; each check is recorded; signals.health, the health factor of ranking, explain's
 * healthBoost and the minUptime filter follow from the checks. Real Elasticsearch and Redis, a
 * loopback seller, and announce modules driven by a fake clock (the re-checks are hours apart).
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { loadConfig, ConfigError } from '../src/config/index.js';
import { probingGateway, type ProbingGateway } from './support/probingGateway.js';
import { HealthChecks } from '../src/store/redis/healthChecks.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { discoveryTools } from '../src/mcp/discoveryTools.js';
import { InvalidInput } from '../src/core/errors.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';
import { storesFor } from '../src/store/stores.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Past the idle interval (6 h) and its +10% jitter. */
const IDLE_PERIOD = 7 * HOUR;

interface Debug {
  score: number;
  relevance: number;
  priceBoost: number;
  recencyBoost: number;
  healthBoost: number;
}
interface Result {
  id: string;
  signals: { health?: { uptime7d: number; latencyP50Ms: number | null; lastChecked: string } | null };
  debug?: Debug;
}

describe('active health: unpaid re-checks, signals.health, the health factor and minUptime (issue 13)', function () {
  this.timeout(60_000);
  let h: Harness;
  let seller: LocalServer;
  let clock: number;
  /** Announce modules on the same Redis and index, driven by the fake clock: two gateways. */
  let gatewayA: ProbingGateway;
  let gatewayB: ProbingGateway;
  let checks: HealthChecks;
  const id: Record<string, string> = {};
  const QUERY = 'narwhal tusk measurement';

  const gateway = () =>
    probingGateway(h.config, h.logger, {
      stores: storesFor(h, h.config),
      writer: h.container.catalog.writer,
      reader: h.container.catalog.reader,
      now: () => clock,
    });

  /** A loopback seller path answering a v2 402 with the shared title, at `amount`. */
  function sell(path: string, amount: string, title: string): void {
    seller.route(path, answers.v2(() => v2Challenge(seller.url(path), { amount, describe: { title, description: `${title}, measured` } })));
  }

  async function listed(path: string, amount: string, title = 'Narwhal tusk measurement'): Promise<string> {
    sell(path, amount, title);
    const { id: listingId } = (await request(h.app).post('/discovery/announce').send({ resource: seller.url(path) }).expect(202)).body;
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${listingId}`)).status === 200, 10_000, 50);
    return listingId;
  }

  const search = async (query: Record<string, string>): Promise<Result[]> =>
    (await request(h.app).get('/discovery/search').query({ q: QUERY, limit: '50', ...query }).expect(200)).body.results;
  /** Search reads see a write after the index refreshes (about a second): the ranked page once the listing shows `uptime`. */
  const rankedWith = (listingId: string, uptime: number) =>
    waitFor(async () => {
      const results = await search({ explain: '1' });
      return results.find((r) => r.id === listingId)?.signals.health?.uptime7d === uptime ? results : undefined;
    }, 10_000, 100);
  const listing = async (listingId: string) => (await request(h.app).get(`/discovery/resources/${listingId}`).expect(200)).body as Result;
  const status = async (listingId: string) => (await request(h.app).get('/discovery/announce/status').query({ id: listingId }).expect(200)).body;
  /** Writes the recorded checks' health to Elasticsearch now and waits until a read shows it. */
  async function flushed(listingId: string, uptime: number): Promise<Result> {
    await h.container.signals.flusher.flushNow();
    return waitFor(async () => {
      const found = await listing(listingId);
      return found.signals.health?.uptime7d === uptime ? found : undefined;
    }, 10_000, 100);
  }
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-4 * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);

  before(async () => {
    seller = await startServer();
    h = await startHarness({
      PROBE_ALLOW: `127.0.0.1:${seller.port}`,
      PROBE_TIMEOUT_MS: '500',
      PROBE_MIN_INTERVAL_MS: '0',
      RATE_LIMIT_ANNOUNCE: 'off',
      PROBE_FAILURES_BEFORE_REMOVAL: '3',
    });
    gatewayA = gateway();
    gatewayB = gateway();
    checks = new HealthChecks(h.redis, h.config.redisPrefix);
    // The flaky one is cheaper, so it ranks first while both are healthy.
    id.flaky = await listed('/health/flaky', '1000');
    id.steady = await listed('/health/steady', '900000');
    // Another text: it never competes with the two above in the search for QUERY.
    id.third = await listed('/health/third', '1000', 'Walrus whisker count');
    await waitFor(async () => (await search({})).length === 2, 10_000, 100);
  });

  after(async () => {
    await h?.close();
    await seller?.close();
  });

  const browse = async (minUptime: string) =>
    ((await request(h.app).get('/discovery/resources').query({ minUptime }).expect(200)).body.results as Result[]).map((r) => r.id).sort();

  it('a listing never checked has no health, ranks with healthBoost exactly 1, and fails minUptime > 0', async () => {
    for (const key of ['flaky', 'steady', 'third']) assert.ok(!('health' in (await listing(id[key]!)).signals));
    const ranked = await search({ explain: '1' });
    assert.equal(ranked.length, 2);
    for (const r of ranked) assert.equal(r.debug!.healthBoost, 1);
    assert.deepEqual(await browse('0'), [id.flaky, id.steady, id.third].sort(), 'minUptime=0 excludes nothing');
    assert.deepEqual(await browse('0.01'), [], 'no health, no uptime: not above 0');
  });

  it('a seller that starts failing is demoted within one check period and removed after the configured failures; uptime7d is the share of valid 402s', async () => {
    // Period 1: every seller answers.
    clock = Date.now() + IDLE_PERIOD;
    assert.equal(await gatewayA.probeWorker.runDue(), 3);
    const latency: Record<string, number> = {};
    for (const key of ['flaky', 'steady', 'third']) {
      const found = await flushed(id[key]!, 1);
      assert.equal(found.signals.health!.lastChecked, new Date(clock).toISOString());
      latency[key] = found.signals.health!.latencyP50Ms!;
      assert.ok(Number.isInteger(latency[key]) && latency[key]! >= 0 && latency[key]! < 500);
    }
    let ranked = await rankedWith(id.steady!, 1);
    ranked = await rankedWith(id.flaky!, 1);
    const position = (rs: Result[], key: string) => rs.findIndex((r) => r.id === id[key]);
    assert.ok(position(ranked, 'flaky') < position(ranked, 'steady'), 'cheaper and healthy: first');
    const before = ranked.find((r) => r.id === id.flaky)!.debug!;
    assert.equal(before.healthBoost, 1);

    // Period 2: the flaky seller answers 503 (transient): one failed check of two.
    seller.route('/health/flaky', answers.status(503));
    clock += IDLE_PERIOD;
    assert.ok((await gatewayA.probeWorker.runDue()) >= 2);
    assert.equal((await status(id.flaky!)).status, 'listed', 'one transient failure does not remove it');
    const demoted = await flushed(id.flaky!, 0.5);
    assert.equal(demoted.signals.health!.latencyP50Ms, latency.flaky, 'latency is the median of the checks that found a 402');
    ranked = await rankedWith(id.flaky!, 0.5);
    assert.ok(position(ranked, 'flaky') > position(ranked, 'steady'), 'demoted below the healthy one within one check period');
    const after = ranked.find((r) => r.id === id.flaky)!.debug!;
    // threshold 0.9, floor 0.3: 0.3 + 0.7 x 0.5 / 0.9
    assert.ok(Math.abs(after.healthBoost - (0.3 + (0.7 * 0.5) / 0.9)) < 1e-4, JSON.stringify(after));
    // Re-indexing shifts BM25 statistics a little, so relevance is not compared across searches; the other factors are.
    assert.equal(after.priceBoost, before.priceBoost);
    assert.equal(after.recencyBoost, before.recencyBoost);
    assert.equal(ranked.find((r) => r.id === id.steady)!.debug!.healthBoost, 1);
    for (const r of ranked) {
      const d = r.debug!;
      assert.ok(close(d.relevance * d.priceBoost * d.recencyBoost * d.healthBoost, d.score), JSON.stringify(d));
    }

    // minUptime: 0.9 keeps the steady one only; 0.5 both.
    const ids = async (minUptime: string) => (await search({ minUptime })).map((r) => r.id);
    assert.deepEqual(await ids('0.9'), [id.steady]);
    assert.deepEqual(new Set(await ids('0.5')), new Set([id.steady, id.flaky]));
    assert.deepEqual(await browse('0.75'), [id.steady, id.third].sort());
    assert.deepEqual(await browse('0.5'), [id.flaky, id.steady, id.third].sort());

    // Failures 2 and 3 come at the transient retry (5 minutes): removed at the third, as before health existed.
    clock += 6 * MINUTE;
    assert.equal(await gatewayA.probeWorker.runDue(), 1);
    await flushed(id.flaky!, 0.3333);
    clock += 6 * MINUTE;
    assert.equal(await gatewayA.probeWorker.runDue(), 1);
    const final = await status(id.flaky!);
    assert.equal(final.status, 'rejected');
    assert.equal(final.reason, 'not_402');
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id.flaky}`)).status === 404, 10_000, 100);
    const recorded = await checks.checks(id.flaky!, clock);
    assert.equal(recorded.length, 4);
    assert.deepEqual(recorded.map((c) => c.ok), [true, false, false, false]);
  });

  it('two gateways never check the same listing twice in one period (the probe lease)', async () => {
    const counts = async () => [(await checks.checks(id.steady!, clock)).length, (await checks.checks(id.third!, clock)).length];
    const [steady, third] = await counts();
    clock += IDLE_PERIOD;
    const [a, b] = await Promise.all([gatewayA.probeWorker.runDue(), gatewayB.probeWorker.runDue()]);
    assert.equal(a + b, 2, 'the steady and the third listing, once each');
    assert.deepEqual(await counts(), [steady! + 1, third! + 1]);
  });

  it('a listing settled in the last 7 days is re-checked at the active interval, an idle one at the idle interval', async () => {
    await h.container.signals.counters.recordSettle(id.steady!, '0x2222222222222222222222222222222222222222');
    clock += IDLE_PERIOD;
    assert.equal(await gatewayA.probeWorker.runDue(), 2);
    const next = async (listingId: string) => Date.parse((await status(listingId)).nextProbeAt) - clock;
    const active = await next(id.steady!);
    const idle = await next(id.third!);
    assert.ok(active >= 0.9 * 15 * MINUTE && active <= 1.1 * 15 * MINUTE, `active: next check in ${active} ms`);
    assert.ok(idle >= 0.9 * 6 * HOUR && idle <= 1.1 * 6 * HOUR, `idle: next check in ${idle} ms`);
  });

  it('the health factor is tuned in the index: floor 1 turns it off', async () => {
    // The third listing's fifth check fails: uptime 4/5, below the 0.9 threshold.
    seller.route('/health/third', answers.status(502));
    clock += IDLE_PERIOD;
    await gatewayA.probeWorker.runDue();
    await flushed(id.third!, 0.8);
    await waitFor(async () => (await browse('0.8')).includes(id.third!) && !(await browse('0.81')).includes(id.third!), 10_000, 100);
    const boostOf = async () =>
      ((await request(h.app).get('/discovery/search').query({ q: 'walrus whisker', explain: '1' }).expect(200)).body.results as Result[]).find(
        (r) => r.id === id.third,
      )!.debug!.healthBoost;
    assert.ok((await boostOf()) < 1);
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'health.floor', '1');
    try {
      await waitFor(async () => (await boostOf()) === 1, 10_000, 200);
    } finally {
      await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'health.floor', '0.3');
    }
    await assert.rejects(setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'health.threshold', '1.5'), /health.threshold/);
  });

  it('minUptime is validated like the other filters on every read and the MCP tools', async () => {
    for (const bad of ['1.5', '-0.1', 'abc', '1e-1', '0x1', '', ' 0.5']) {
      for (const [path, extra] of [['/discovery/resources', {}], ['/discovery/search', { q: 'x' }], ['/mcp/tools', { q: 'x' }]] as const) {
        const res = await request(h.app).get(path).query({ ...extra, minUptime: bad }).expect(400);
        assert.equal(res.body.code, 'invalid_filter_value', `${path} minUptime=${JSON.stringify(bad)}`);
        assert.match(res.headers['content-type']!, /application\/problem\+json/);
        assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), ['minUptime']);
      }
    }
    // Repeated, and the order of checks: an unknown parameter first, then a missing q.
    const repeated = await request(h.app).get('/discovery/resources?minUptime=0.5&minUptime=0.6').expect(400);
    assert.equal(repeated.body.code, 'invalid_filter_value');
    assert.equal((await request(h.app).get('/discovery/search').query({ minUptime: '2', bogus: '1' }).expect(400)).body.code, 'unknown_filter');
    assert.equal((await request(h.app).get('/discovery/search').query({ minUptime: '2' }).expect(400)).body.code, 'missing_query');
    for (const good of ['0', '1', '.5', '0.95', '1.0']) await request(h.app).get('/discovery/resources').query({ minUptime: good }).expect(200);
    // The MCP discovery tools: the same filter, checked against their input schema first.
    const tools = discoveryTools({ search: h.container.search.search, listings: { findListing: async () => undefined } });
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    for (const name of ['search_resources', 'list_resources']) {
      const args = name === 'search_resources' ? { q: 'walrus whisker' } : {};
      await assert.rejects(tool(name).run({ ...args, minUptime: 1.5 }), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_arguments');
      await assert.rejects(tool(name).run({ ...args, minUptime: '0.5' }), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_arguments');
      const healthy = (await tool(name).run({ ...args, minUptime: 0.81 })).results as Result[];
      assert.ok(!healthy.some((r) => r.id === id.third), `${name}: the third listing (uptime 0.8) is filtered out`);
      const all = (await tool(name).run({ ...args, minUptime: 0.8 })).results as Result[];
      assert.ok(all.some((r) => r.id === id.third), `${name}: uptime 0.8 passes minUptime 0.8`);
    }
  });

  it('HEALTH_*_INTERVAL_MS are validated at startup like the other settings', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.problems;
      }
    };
    assert.deepEqual(problems({}), []);
    assert.match(problems({ HEALTH_ACTIVE_INTERVAL_MS: '10' }).join(), /HEALTH_ACTIVE_INTERVAL_MS="10": must be an integer between 60000/);
    assert.match(problems({ HEALTH_IDLE_INTERVAL_MS: 'soon' }).join(), /HEALTH_IDLE_INTERVAL_MS/);
    assert.match(problems({ HEALTH_ACTIVE_INTERVAL_MS: '7200000', HEALTH_IDLE_INTERVAL_MS: '3600000' }).join(), /must not exceed HEALTH_IDLE_INTERVAL_MS/);
    const config = loadConfig({});
    assert.equal(config.announce.healthActiveIntervalMs, 15 * MINUTE);
    assert.equal(config.announce.healthIdleIntervalMs, 6 * HOUR);
  });
});
