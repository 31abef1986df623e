import assert from 'node:assert/strict';
import { buildCatalog, type Catalog } from '../src/catalog/index.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { encodeOperation } from '../src/catalog/operations.js';
import { createLogger } from '../src/logger.js';
import { createElasticsearchClient } from '../src/store/elasticsearch.js';
import { createRedisClient } from '../src/store/redis.js';
import { WriteStream } from '../src/store/writeStream.js';
import { startHarness, testConfig, uniqueNames, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';

const silent = createLogger('error', { silent: true });

describe('catalog write path durability', () => {
  describe('Elasticsearch unreachable', () => {
    const names = uniqueNames('dur');
    const shared = { LISTINGS_ALIAS: names.listingsAlias, LISTINGS_INDEX: names.listingsIndex, REDIS_PREFIX: names.redisPrefix };
    let deadCatalog: Catalog;
    let closeDead: () => Promise<void>;
    let healthy: Harness | undefined;

    before(() => {
      // A service instance whose Elasticsearch is a closed port, writing into the shared stream.
      const config = testConfig({ ...shared, ELASTICSEARCH_URL: 'http://127.0.0.1:1', CATALOG_RETRY_BASE_MS: '20', CATALOG_RETRY_MAX_MS: '100', CATALOG_MAX_ATTEMPTS: '2' });
      const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 300 });
      const redis = createRedisClient(config.redisUrl);
      deadCatalog = buildCatalog(config, silent, { elasticsearch, redis });
      closeDead = async () => {
        await deadCatalog.worker.stop();
        await Promise.allSettled([elasticsearch.close(), redis.quit()]);
      };
    });
    after(async () => {
      await closeDead();
      await healthy?.close();
    });

    it('accepts every write while Elasticsearch is down, loses none, and applies them all once a consumer can', async () => {
      deadCatalog.worker.start();
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const { id, created } = await deadCatalog.writer.upsert(httpInput({ resource: `https://outage.example/item/${i}` }), { source: 'announce' });
        assert.equal(created, true);
        ids.add(id);
      }
      const bulk = await deadCatalog.writer.upsertMany(
        Array.from({ length: 30 }, (_, i) => mcpInput({ resource: `mcp://outage.example/tool_${i}`, name: `tool_${i}` })),
        { source: 'import' },
      );
      assert.equal(bulk.accepted.length, 30);
      for (const a of bulk.accepted) ids.add(a.id);

      // The dead consumer has taken the entries and keeps failing on them: nothing is dead-lettered,
      // because an unreachable Elasticsearch does not count as a rejection.
      const during = await waitFor(async () => {
        const s = await deadCatalog.queue.stats();
        return s.pending > 0 ? s : undefined;
      });
      assert.equal(during.depth, 50);
      assert.equal(during.deadLetters, 0);

      // A healthy instance sharing the stream takes over what the failing one holds.
      healthy = await startHarness({ ...shared, CATALOG_CLAIM_IDLE_MS: '300' });
      await waitFor(async () => (await healthy!.elasticsearch.count({ index: names.listingsAlias })).count === 50 || undefined, 15_000, 100);
      const docs = await healthy.container.catalog.reader.getMany([...ids]);
      assert.equal(docs.size, 50);
      const after = await waitFor(async () => {
        const s = await healthy!.container.catalog.queue.stats();
        return s.depth === 0 ? s : undefined;
      });
      assert.equal(after.deadLetters, 0);
    });
  });

  describe('dead letters', () => {
    let h: Harness;
    let stream: WriteStream;
    before(async () => {
      h = await startHarness({ CATALOG_MAX_ATTEMPTS: '3', CATALOG_RETRY_BASE_MS: '10', CATALOG_RETRY_MAX_MS: '20' });
      stream = new WriteStream(h.redis, h.config.redisPrefix);
    });
    after(async () => h.close());

    it('an entry Elasticsearch keeps rejecting moves to the dead-letter stream with its reason; the rest still lands', async () => {
      const doc = buildListingDocument(httpInput({ resource: 'https://poison.example/x' }), { source: 'import' }, new Date());
      // A field the strict mapping does not know: Elasticsearch rejects this document every time.
      const poisoned = { ...doc, sneaky: 'field' };
      await stream.append([{ payload: encodeOperation({ op: 'upsert', id: doc.id, doc: poisoned, replaceSignals: false }), live: { id: doc.id, present: true } }]);
      await stream.append([{ payload: '{"not":"an operation"}' }]);
      const good = await h.container.catalog.writer.upsert(httpInput({ resource: 'https://poison.example/fine' }), { source: 'announce' });

      const dead = await waitFor(async () => {
        const letters = await h.container.catalog.queue.deadLetters();
        return letters.length === 2 ? letters : undefined;
      });
      const rejected = dead.find((d) => d.payload.includes('sneaky'))!;
      assert.match(rejected.reason, /strict_dynamic_mapping_exception/);
      assert.match(rejected.reason, /sneaky/);
      assert.equal(rejected.attempts, 3);
      assert.ok(Date.parse(rejected.failedAt) > 0);
      const unreadable = dead.find((d) => d.payload.includes('not'))!;
      assert.match(unreadable.reason, /unreadable/);

      assert.ok(await h.container.catalog.reader.get(good.id));
      assert.equal(await h.container.catalog.reader.get(doc.id), undefined);
      const stats = await h.container.catalog.queue.stats();
      assert.deepEqual(stats, { depth: 0, pending: 0, deadLetters: 2 });
      // The dead-lettered listing is not live: writing it correctly later reports it as created.
      assert.equal(await stream.isLive(doc.id), false);
    });

    it('requeued dead letters are applied once their cause is fixed', async () => {
      // The operator's fix: the mapping learns the field the poisoned document carried.
      await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, properties: { sneaky: { type: 'keyword' } } });
      assert.equal(await h.container.catalog.queue.requeueDeadLetters(), 2);
      const id = buildListingDocument(httpInput({ resource: 'https://poison.example/x' }), { source: 'import' }, new Date()).id;
      const landed = await waitFor(async () => h.container.catalog.reader.get(id));
      assert.equal(landed.resource, 'https://poison.example/x');
      // The unreadable entry is still unreadable: back in the dead-letter stream, alone.
      const letters = await waitFor(async () => {
        const l = await h.container.catalog.queue.deadLetters();
        return l.length === 1 && (await h.container.catalog.queue.stats()).depth === 0 ? l : undefined;
      });
      assert.match(letters[0]!.reason, /unreadable/);
    });
  });
});
