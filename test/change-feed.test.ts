import assert from 'node:assert/strict';
import request from 'supertest';
import { toListing } from '../src/catalog/listing.js';
import type { Listing } from '../src/shapes/listing.js';
import { ChangeFeedSeeder } from '../src/changes/feedSeeder.js';
import { ChangeLog } from '../src/store/redis/changeLog.js';
import { dropDeploymentData } from '../src/store/deploymentData.js';
import { drainQueue, openCatalogSession } from '../src/cli/catalogSession.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';
import { ElasticsearchStores } from '../src/store/elasticsearch/elasticsearchStores.js';

interface FeedBody {
  changes: Array<{ id: string; listing?: Listing; removed?: true; removedAt?: string; reason?: string }>;
  nextSince: string;
  hasMore: boolean;
}

describe('change feed (GET /discovery/changes)', () => {
  let h: Harness;
  before(async () => {
    // Small batches: writes spread over concurrent batches, whose changes are logged in any order.
    h = await startHarness({ CATALOG_BATCH_SIZE: '8' });
  });
  after(async () => h.close());

  const writer = () => h.container.catalog.writer;
  const feed = async (query: Record<string, string> = {}): Promise<FeedBody> =>
    (await request(h.app).get('/discovery/changes').query(query).expect(200)).body as FeedBody;
  const drained = () => waitFor(async () => (await h.container.catalog.queue.stats()).depth === 0, 15_000, 50);

  /** A mirror: applies pages from `since` until the feed has nothing more; returns the new token. */
  async function follow(mirror: Map<string, Listing>, since: string | undefined, limit: number): Promise<string | undefined> {
    for (;;) {
      const page = await feed({ ...(since ? { since } : {}), limit: String(limit) });
      for (const change of page.changes) {
        if (change.listing) mirror.set(change.id, change.listing);
        else mirror.delete(change.id);
      }
      since = page.nextSince;
      if (!page.hasMore) return since;
    }
  }

  async function catalogOf(ids: string[]): Promise<Map<string, Listing>> {
    const docs = await h.container.catalog.reader.getMany(ids);
    return new Map([...docs.values()].filter((d) => !d.removed).map((d) => [d.id, toListing(d)]));
  }

  it('a mirror replaying from the start while writes and removals happen ends equal to the catalog', async () => {
    const inputs = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0
        ? mcpInput({ resource: `mcp://feed-${i}.example/tool_${i}`, name: `tool_${i}` })
        : httpInput({ resource: `https://feed-${i}.example/api/v1` }),
    );
    const withPrice = (i: number, amount: number) => ({ ...inputs[i]!, payment: { ...inputs[i]!.payment, amount: String(amount) } });
    const ids: string[] = [];
    let writing = true;
    const writes = (async () => {
      // Half listed before the mirror starts, half while it follows.
      for (let i = 0; i < 20; i++) ids.push((await writer().upsert(inputs[i]!, { source: 'import' })).id);
      await new Promise((r) => setTimeout(r, 300));
      for (let round = 0; round < 6; round++) {
        const jobs: Array<Promise<unknown>> = [];
        for (let i = 20 + round * 3; i < 23 + round * 3; i++) jobs.push(writer().upsert(inputs[i]!, { source: 'import' }).then((r) => ids.push(r.id)));
        jobs.push(writer().upsert(withPrice(round, 5000 + round), { source: 'import' }));
        jobs.push(writer().remove(ids[10 + round]!, 'unpublished'));
        if (round >= 2) jobs.push(writer().upsert(withPrice(10 + round - 2, 777), { source: 'import' })); // relisted with a new price
        jobs.push(writer().updateSignals([{ id: ids[round + 1]!, signals: { settleCount7d: round + 1, rejectionRate7d: 0, lastSettled: new Date().toISOString() } }]));
        await Promise.all(jobs);
        await new Promise((r) => setTimeout(r, 120));
      }
      for (let i = 38; i < 40; i++) ids.push((await writer().upsert(inputs[i]!, { source: 'import' })).id);
      writing = false;
    })();

    const mirror = new Map<string, Listing>();
    await new Promise((r) => setTimeout(r, 100));
    let since = await follow(mirror, undefined, 7);
    while (writing) {
      since = await follow(mirror, since, 7);
      await new Promise((r) => setTimeout(r, 40));
    }
    await writes;
    await drained();
    since = await follow(mirror, since, 7);

    const catalog = await catalogOf(ids);
    assert.equal(catalog.size, 40 - 6 + 4, 'six removed, four of them relisted');
    assert.deepEqual(new Map([...mirror].sort()), new Map([...catalog].sort()));
    // Nothing new: the token stays put and the page is empty.
    const idle = await feed({ since: since! });
    assert.deepEqual(idle.changes, []);
    assert.equal(idle.hasMore, false);
  });

  it('tombstones carry the removal time and reason; each listing appears once from the beginning', async () => {
    const kept = await writer().upsert(httpInput({ resource: 'https://tomb.example/kept' }), { source: 'import' });
    const gone = await writer().upsert(httpInput({ resource: 'https://tomb.example/gone' }), { source: 'import' });
    await writer().upsert(httpInput({ resource: 'https://tomb.example/kept', payment: { ...httpInput().payment, amount: '42' } }), { source: 'import' });
    await writer().remove(gone.id, 'probe_failed');
    await drained();
    const all: FeedBody['changes'] = [];
    let since: string | undefined;
    for (;;) {
      const page = await feed({ ...(since ? { since } : {}), limit: '1000' });
      all.push(...page.changes);
      since = page.nextSince;
      if (!page.hasMore) break;
    }
    const ids = all.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length, 'compacted: one entry per listing');
    assert.equal(all.find((c) => c.id === kept.id)!.listing!.payment.amount, '42');
    const tomb = all.find((c) => c.id === gone.id)!;
    assert.equal(tomb.removed, true);
    assert.equal(tomb.reason, 'probe_failed');
    assert.ok(Math.abs(Date.parse(tomb.removedAt!) - Date.now()) < 60_000);
    assert.equal(tomb.listing, undefined);
  });

  it('seeds the log once from listings indexed before the feed existed', async () => {
    const { id } = await writer().upsert(httpInput({ resource: 'https://seed.example/old' }), { source: 'import' });
    await drained();
    const log = new ChangeLog(h.redis, h.config.redisPrefix);
    const before = (await feed()).nextSince;
    await h.redis.del(log.key, log.latestKey, log.seededKey, log.epochKey); // as before this feature, or Redis lost
    assert.deepEqual((await feed()).changes, []);
    // A token of the lost log would silently skip the new log's start: refused, the mirror replays.
    const stale = await request(h.app).get('/discovery/changes').query({ since: before }).expect(400);
    assert.equal(stale.body.code, 'invalid_cursor');
    assert.match(stale.body.detail, /started again/);
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    const seeder = new ChangeFeedSeeder(log, new ElasticsearchStores(h.elasticsearch, h.config.listingsAlias, h.config.listingsIndex), h.logger);
    assert.ok((await seeder.seed()) >= 1);
    assert.equal(await seeder.seed(), 0, 'done once');
    const page = await feed({ limit: '1000' });
    assert.ok(page.changes.some((c) => c.id === id && c.listing?.resource === 'https://seed.example/old'));
  });

  it('a catalog imported into a new deployment is in the feed already: no gateway has to seed it', async () => {
    const stamp = `feedload${Date.now().toString(36)}`;
    const session = await openCatalogSession({ ...process.env, LISTINGS_ALIAS: `${stamp}-listings`, LISTINGS_INDEX: `${stamp}-listings-v1`, REDIS_PREFIX: `${stamp}:` });
    try {
      const log = new ChangeLog(session.redis, session.config.redisPrefix);
      const written = await session.catalog.writer.upsertMany(
        [1, 2, 3].map((i) => httpInput({ resource: `https://feedload.example/v1/r${i}` })),
        { source: 'import' },
      );
      await drainQueue(session, { timeoutMs: 15_000, pollMs: 50 });
      // Without the mark, the first server start would read the whole catalog for nothing new.
      assert.equal(await log.isSeeded(), true);
      const logged = (await log.after(undefined, 100)).map((entry) => entry.listingId);
      assert.deepEqual([...logged].sort(), written.accepted.map((a) => a.id).sort());
    } finally {
      await dropDeploymentData(session.elasticsearch, session.redis, session.config);
      await session.close();
    }
  });

  it('validates the query strictly with problem+json', async () => {
    const problem = async (query: Record<string, string | string[]>, code: string, path: string) => {
      const res = await request(h.app).get('/discovery/changes').query(query).expect(400).expect('Content-Type', /application\/problem\+json/);
      assert.equal(res.body.code, code);
      assert.ok((res.body.errors as Array<{ path: string }>).some((e) => e.path === path), JSON.stringify(res.body));
    };
    await problem({ cursor: 'x' }, 'unknown_filter', 'cursor');
    for (const limit of ['0', '1001', '-1', 'ten', '1.5', '']) await problem({ limit }, 'invalid_filter_value', 'limit');
    await problem({ limit: ['1', '2'] }, 'invalid_filter_value', 'limit');
    await problem({ since: '' }, 'invalid_filter_value', 'since');
    const { nextSince } = await feed({ limit: '1' });
    await problem({ since: [nextSince, nextSince] }, 'invalid_filter_value', 'since');
    await problem({ since: 'garbage' }, 'invalid_cursor', 'since');
    const [body, tag] = nextSince.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: 1, p: '1-0' })).toString('base64url');
    await problem({ since: `${forged}.${tag}` }, 'invalid_cursor', 'since');
    await problem({ since: `${body}.${'A'.repeat(22)}` }, 'invalid_cursor', 'since');
    // Fuzz: arbitrary bytes as a token are a 400, never a 500.
    for (let i = 0; i < 40; i++) {
      const junk = Array.from({ length: 1 + ((i * 7) % 90) }, (_, k) => String.fromCharCode(32 + ((i * 31 + k * 17) % 95))).join('');
      const res = await request(h.app).get('/discovery/changes').query({ since: i % 2 ? junk : `${junk}.${tag}` });
      assert.equal(res.status, 400, junk);
    }
    // A search cursor is signed with the same secret but is not a feed token.
    await writer().upsert(httpInput({ resource: 'https://cursor.example/a' }), { source: 'import' });
    await writer().upsert(httpInput({ resource: 'https://cursor.example/b' }), { source: 'import' });
    await drained();
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    const search = await request(h.app).get('/discovery/resources').query({ limit: '1' }).expect(200);
    assert.ok(search.body.nextCursor);
    await problem({ since: search.body.nextCursor as string }, 'invalid_cursor', 'since');
  });
});
