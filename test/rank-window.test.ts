import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';
import { daysAgo, httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

interface Debug {
  score: number;
  relevance: number;
  priceBoost: number;
  recencyBoost: number;
  healthBoost: number;
}
interface Result {
  id: string;
  type: string;
  payment: { amount: string };
  debug?: Debug;
}
interface Page {
  results: Result[];
  nextCursor?: string;
}

/**
 * The rank window (docs/catalog-reads.md, "Rank window"; DECISIONS "Ranked search at scale"): the
 * factors are applied to the best `window` matches by text relevance; past them, the other matches
 * are ranked exactly. A buyer still pages through every match exactly once, explain still
 * multiplies, and filters still hold.
 */
describe('ranked search: the rank window', () => {
  let h: Harness;
  const matching: string[] = [];
  const tunables = () => new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias);
  const setWindow = async (size: number) => {
    await setRanking(tunables(), 'window', String(size));
    await h.container.search.ranking.refresh();
  };
  const get = async (path: string): Promise<Page> => (await request(h.app).get(path).expect(200)).body as Page;

  async function pageThrough(path: string, limit: number, from?: string): Promise<Result[]> {
    const seen: Result[] = [];
    let cursor: string | undefined = from;
    for (let i = 0; i < 100; i++) {
      const page = await get(`${path}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.results);
      if (!page.nextCursor) return seen;
      assert.equal(page.results.length, limit, 'only the last page may be short');
      cursor = page.nextCursor;
    }
    throw new Error('paging did not end');
  }

  before(async () => {
    h = await startHarness();
    // Text relevance differs (one, two or three of the query's words), and so do price and last
    // settlement: the factors reorder listings of similar text relevance.
    const inputs = Array.from({ length: 26 }, (_, n) =>
      httpListing({
        path: `orbit-${n}`,
        title: ['Orbit tracker', 'Orbit tracker telemetry', 'Orbit tracker telemetry feed'][n % 3]!,
        description: `Satellite pass number ${n}.`,
        amount: String(1000 * (1 + ((n * 7) % 9))),
        lastSettled: n % 4 === 0 ? undefined : daysAgo(n % 8),
      }),
    );
    matching.push(...(await seed(h, inputs)));
    matching.push(...(await seed(h, [mcpListing({ name: 'orbit_tracker', description: 'Orbit tracker telemetry for agents.' })])));
  });
  after(async () => h.close());

  for (const limit of [3, 4, 7]) {
    it(`pages through every match exactly once across the window's end (window 8, limit ${limit})`, async () => {
      await setWindow(8);
      const ids = (await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry', limit)).map((r) => r.id);
      assert.equal(ids.length, new Set(ids).size, 'a listing was shown twice');
      assert.deepEqual([...ids].sort(), [...matching].sort());
    });
  }

  it('a window as large as the matches ranks exactly as no window does', async () => {
    await setWindow(0);
    const exact = await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry&explain=1', 50);
    await setWindow(100);
    const windowed = await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry&explain=1', 50);
    assert.deepEqual(windowed.map((r) => r.id), exact.map((r) => r.id));
    windowed.forEach((r, i) => assert.ok(Math.abs(r.debug!.score - exact[i]!.debug!.score) <= 1e-4 * exact[i]!.debug!.score, `${r.id}: ${r.debug!.score} vs ${exact[i]!.debug!.score}`));
  });

  it('the first page scores its listings exactly as the exact ranking does, best first', async () => {
    await setWindow(0);
    const exact = new Map((await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry&explain=1', 50)).map((r) => [r.id, r.debug!.score]));
    await setWindow(8);
    const first = (await get('/discovery/search?q=orbit%20tracker%20telemetry&explain=1&limit=5')).results;
    assert.equal(first.length, 5);
    for (let i = 0; i < first.length; i++) {
      const score = first[i]!.debug!.score;
      assert.ok(Math.abs(score - exact.get(first[i]!.id)!) <= 1e-4 * score, 'a window listing scores what the exact ranking gives it');
      if (i > 0) assert.ok(first[i - 1]!.debug!.score >= score, 'best first');
    }
  });

  it('explain multiplies exactly on window pages and on pages past the window', async () => {
    await setWindow(5);
    const all = await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry&explain=1', 4);
    assert.equal(all.length, matching.length);
    for (const r of all) {
      const d = r.debug!;
      const product = d.relevance * d.priceBoost * d.recencyBoost * d.healthBoost;
      assert.ok(Math.abs(product - d.score) <= 1e-4 * d.score, `${r.id}: ${JSON.stringify(d)}`);
    }
  });

  it('filters hold on every page, in the window and past it', async () => {
    await setWindow(5);
    const http = await pageThrough('/discovery/search?q=orbit%20tracker&type=http&maxPrice=5000', 3);
    assert.ok(http.length > 5, 'the filter left too few listings to cross the window');
    assert.ok(http.every((r) => r.type === 'http' && BigInt(r.payment.amount) <= 5000n));
    assert.equal(http.length, new Set(http.map((r) => r.id)).size);
    const mcp = await pageThrough('/discovery/search?q=orbit%20tracker&type=mcp', 3);
    assert.deepEqual(mcp.map((r) => r.type), ['mcp']);
  });

  it('a search keeps the window it started with when the operator changes it meanwhile', async () => {
    for (const [before, after] of [[20, 4], [4, 20]] as const) {
      await setWindow(before);
      const first = await get('/discovery/search?q=orbit%20tracker%20telemetry&limit=10');
      await setWindow(after);
      const rest = await pageThrough('/discovery/search?q=orbit%20tracker%20telemetry', 10, first.nextCursor);
      const ids = [...first.results, ...rest].map((r) => r.id);
      assert.equal(ids.length, new Set(ids).size, `window ${before} -> ${after}: a listing was shown twice`);
      assert.deepEqual([...ids].sort(), [...matching].sort());
    }
  });
});
