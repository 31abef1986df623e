import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';
import { daysAgo, httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { buildCatalogSearch } from '../src/search/index.js';
import { parseReadRequest } from '../src/search/readGrammar.js';
import { storesFor } from '../src/store/stores.js';

interface Page {
  results: Array<{ id: string; payment: { amount: string }; signals: { lastSettled?: string } }>;
  nextCursor?: string;
}

describe('catalog reads: paging and cursors (SPEC 4.1 rules 1-3; DECISIONS "Catalog reads")', () => {
  let h: Harness;
  const all: string[] = [];
  const firstSeenOf = new Map<string, number>();
  const T0 = Date.parse('2026-01-01T00:00:00Z');

  before(async () => {
    h = await startHarness();
    // Three batches with distinct firstSeen, so the newest-first order and its id tie-break both show.
    for (let batch = 0; batch < 3; batch++) {
      const inputs = Array.from({ length: 15 }, (_, i) => {
        const n = batch * 15 + i;
        return httpListing({
          path: `item-${n}`,
          title: `Paging widget ${n % 4 === 0 ? 'widget' : 'gadget'} ${n}`,
          amount: String(1000 * ((n * 7) % 5) + 1), // repeated prices: ties broken by score, then id
          lastSettled: n % 3 === 0 ? undefined : daysAgo(n % 10),
        });
      });
      const seenAt = new Date(T0 + batch * 3_600_000);
      const ids = await seed(h, inputs, { seenAt });
      for (const id of ids) firstSeenOf.set(id, seenAt.getTime());
      all.push(...ids);
    }
    await seed(h, [mcpListing({ name: 'widget_tool', description: 'A widget tool' })]);
  });
  after(async () => h.close());

  async function pageThrough(path: string, limit: number): Promise<Page['results']> {
    const seen: Page['results'] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await request(h.app).get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200);
      const page = res.body as Page;
      seen.push(...page.results);
      if (!page.nextCursor) return seen;
      assert.equal(page.results.length, limit, 'only the last page may be short');
      cursor = page.nextCursor;
    }
    throw new Error('paging did not end');
  }

  const assertExactlyOnce = (results: Page['results'], expected: string[]) => {
    const ids = results.map((r) => r.id);
    assert.equal(ids.length, new Set(ids).size, 'no listing twice');
    assert.deepEqual([...ids].sort(), [...expected].sort());
  };

  it('limit defaults to 20 and a full page carries nextCursor', async () => {
    const res = await request(h.app).get('/discovery/resources?type=http').expect(200);
    assert.equal(res.body.results.length, 20);
    assert.equal(typeof res.body.nextCursor, 'string');
  });

  it('limit=100 returns everything at once, without nextCursor', async () => {
    const res = await request(h.app).get('/discovery/resources?type=http&limit=100').expect(200);
    assert.equal(res.body.results.length, 45);
    assert.ok(!('nextCursor' in res.body));
  });

  it('exactly a page left: the last page has no nextCursor (no empty extra page)', async () => {
    const first = await request(h.app).get('/discovery/resources?type=http&limit=15').expect(200);
    const second = await request(h.app).get(`/discovery/resources?type=http&limit=30&cursor=${encodeURIComponent(first.body.nextCursor)}`).expect(200);
    assert.equal(second.body.results.length, 30);
    assert.equal(second.body.nextCursor, undefined);
  });

  it('/discovery/resources pages return every listing exactly once, newest firstSeen first, then by id', async () => {
    const results = await pageThrough('/discovery/resources?type=http', 7);
    assertExactlyOnce(results, all);
    const keys = results.map((r) => [-firstSeenOf.get(r.id)!, r.id] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    assert.deepEqual(keys, sorted);
  });

  for (const sort of ['rank', 'price', 'recent']) {
    it(`/discovery/search sort=${sort} pages return every match exactly once`, async () => {
      const results = await pageThrough(`/discovery/search?q=paging&sort=${sort}`, 6);
      assertExactlyOnce(results, all);
    });
  }

  it('sort=price pages are cheapest first across pages', async () => {
    const amounts = (await pageThrough('/discovery/search?q=paging&sort=price', 8)).map((r) => BigInt(r.payment.amount));
    for (let i = 1; i < amounts.length; i++) assert.ok(amounts[i - 1]! <= amounts[i]!);
  });

  it('sort=recent: most recently settled first, never settled last (newest firstSeen first)', async () => {
    const results = await pageThrough('/discovery/search?q=paging&sort=recent', 8);
    const settled = results.filter((r) => r.signals.lastSettled);
    const never = results.slice(settled.length);
    assert.ok(never.every((r) => !r.signals.lastSettled), 'never-settled listings come after every settled one');
    const times = settled.map((r) => Date.parse(r.signals.lastSettled!));
    for (let i = 1; i < times.length; i++) assert.ok(times[i - 1]! >= times[i]!);
    const seen = never.map((r) => firstSeenOf.get(r.id)!);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]! >= seen[i]!);
  });

  it('sort=price pages exactly once through amounts above 2^53 (where JSON numbers lose precision)', async () => {
    const amounts = ['9007199254740993', '9007199254740992', '9007199254740994', '9007199254740993'];
    const ids = await seed(h, amounts.map((amount, i) => httpListing({ path: `colossal-${i}`, title: 'Colossal ledger', amount })));
    const results = await pageThrough('/discovery/search?q=colossal&sort=price', 1);
    assertExactlyOnce(results, ids);
    assert.deepEqual(results.map((r) => r.payment.amount), [...amounts].sort());
  });

  it('a ranked search keeps scoring later pages with the first page\'s clock', async () => {
    let clock = Date.now();
    const { search } = buildCatalogSearch(h.config, h.logger, storesFor({ elasticsearch: h.elasticsearch, redis: h.redis }, h.config), { now: () => clock });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search.read(parseReadRequest('search', { q: 'paging widget gadget', type: 'http', limit: '5', ...(cursor ? { cursor } : {}) }));
      seen.push(...page.results.map((r) => r.id));
      cursor = page.nextCursor;
      clock += 9 * 86_400_000; // recency factors would shift between pages if `now` were not pinned
    } while (cursor);
    assert.equal(seen.length, new Set(seen).size);
    assert.deepEqual([...seen].sort(), [...all].sort());
  });

  describe('invalid cursors: 400 invalid_cursor', () => {
    let cursor: string;
    before(async () => {
      cursor = (await request(h.app).get('/discovery/search?q=paging&network=eip155:84532&limit=5').expect(200)).body.nextCursor;
      assert.ok(cursor);
    });

    const expectInvalid = async (path: string) => {
      const res = await request(h.app).get(path).expect(400);
      assert.equal(res.body.code, 'invalid_cursor');
      assert.equal(res.body.errors[0].path, 'cursor');
    };

    it('altered in its body or its signature, or garbage', async () => {
      const [body, tag] = cursor.split('.') as [string, string];
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      // A ranked search's first page continues in the rank window (a position), or past it (sort values).
      if (typeof payload.w === 'number') payload.w += 1;
      else payload.a[0] = 0;
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${tag}`;
      for (const bad of [`${flip(body, 5)}.${tag}`, `${body}.${flip(tag, 3)}`, forged, 'not-a-cursor', `${body}.`, '']) {
        await expectInvalid(`/discovery/search?q=paging&network=eip155:84532&limit=5&cursor=${encodeURIComponent(bad)}`);
      }
    });

    it('replayed with another query, filter, sort or endpoint', async () => {
      const c = encodeURIComponent(cursor);
      await expectInvalid(`/discovery/search?q=widget&network=eip155:84532&cursor=${c}`);
      await expectInvalid(`/discovery/search?q=paging&cursor=${c}`);
      await expectInvalid(`/discovery/search?q=paging&network=eip155:84532&maxPrice=5000&cursor=${c}`);
      await expectInvalid(`/discovery/search?q=paging&network=eip155:84532&sort=price&cursor=${c}`);
      await expectInvalid(`/discovery/resources?network=eip155:84532&cursor=${c}`);
      await expectInvalid(`/mcp/tools?q=paging&network=eip155:84532&cursor=${c}`);
    });

    it('the same cursor with another page size is fine', async () => {
      const res = await request(h.app).get(`/discovery/search?q=paging&network=eip155:84532&limit=9&cursor=${encodeURIComponent(cursor)}`).expect(200);
      assert.equal(res.body.results.length, 9);
    });

    it('a repeated cursor parameter is a bad value', async () => {
      const c = encodeURIComponent(cursor);
      const res = await request(h.app).get(`/discovery/search?q=paging&cursor=${c}&cursor=${c}`).expect(400);
      assert.equal(res.body.code, 'invalid_filter_value');
    });
  });
});
