import assert from 'node:assert/strict';
import { buildCatalog, type Catalog } from '../src/catalog/index.js';
import { changeRecorder } from '../src/changes/index.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { encodeOperation, type CatalogOperation } from '../src/store/catalogOperations.js';
import { createLogger } from '../src/logger.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { WriteStream, type AppendRequest } from '../src/store/redis/writeStream.js';
import { startHarness, testConfig, uniqueNames, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';
import { storesFor } from '../src/store/stores.js';
import { RedisStores } from '../src/store/redis/redisStores.js';

const silent = createLogger('error', { silent: true });

type BulkLine = Record<string, { _id?: string } | undefined>;

/**
 * An Elasticsearch client whose next `_bulk` re-indexing a given listing first runs `before`: a
 * concurrent change between the consumer's read and its write, so Elasticsearch answers with a real
 * version conflict. Counts the version conflicts Elasticsearch reported.
 */
function interceptingClient(url: string) {
  const client = createElasticsearchClient(url);
  const bulk = client.bulk.bind(client);
  const state = { conflicts: 0, next: undefined as { id: string; before: () => Promise<unknown> } | undefined };
  client.bulk = (async (params: { operations?: BulkLine[] }, options?: unknown) => {
    const next = state.next;
    if (next && (params.operations ?? []).some((line, i) => i % 2 === 0 && line.index?._id === next.id)) {
      state.next = undefined;
      await next.before();
    }
    const response = (await bulk(params as never, options as never)) as { items: Array<Record<string, { error?: { type?: string } }>> };
    for (const item of response.items) for (const result of Object.values(item)) if (result.error?.type === 'version_conflict_engine_exception') state.conflicts++;
    return response;
  }) as unknown as ElasticsearchClient['bulk'];
  return { client, state };
}

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
      deadCatalog = buildCatalog(config, silent, storesFor({ elasticsearch, redis }, config), changeRecorder(new RedisStores(redis, config.redisPrefix)));
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

  describe('stream order per listing when a write is retried', () => {
    let h: Harness;
    let catalog: Catalog;
    let stream: WriteStream;
    let es: ReturnType<typeof interceptingClient>;
    before(async () => {
      h = await startHarness({ CATALOG_RETRY_BASE_MS: '10', CATALOG_RETRY_MAX_MS: '50' }, { workers: false });
      es = interceptingClient(h.config.elasticsearchUrl);
      catalog = buildCatalog(h.config, silent, storesFor({ elasticsearch: es.client, redis: h.redis }, h.config), changeRecorder(new RedisStores(h.redis, h.config.redisPrefix)));
      stream = new WriteStream(h.redis, h.config.redisPrefix);
      catalog.worker.start();
    });
    after(async () => {
      await catalog.worker.stop();
      await es.client.close();
      await h.close();
    });

    const input = (path: string, amount: string) => httpInput({ resource: `https://order.example/${path}`, payment: { ...httpInput().payment, amount } });
    function upsertRequest(path: string, amount: string): AppendRequest {
      const doc = buildListingDocument(input(path, amount), { source: 'publish' }, new Date());
      const operation: CatalogOperation = { op: 'upsert', id: doc.id, doc, replaceSignals: false };
      return { listingId: doc.id, payload: encodeOperation(operation), live: { id: doc.id, present: true } };
    }
    function removeRequest(id: string): AppendRequest {
      const operation: CatalogOperation = { op: 'remove', id, reason: 'unpublished', at: new Date().toISOString() };
      return { listingId: id, payload: encodeOperation(operation), live: { id, present: false } };
    }
    /** A signals flush landing between the consumer's read of the listing and its `_bulk`. */
    const signalsFlush = (id: string) => h.elasticsearch.update({ index: h.config.listingsAlias, id, doc: { signals: { settleCount7d: 3, rejectionRate7d: 0 } } });
    async function settled(id: string) {
      await waitFor(async () => (await catalog.queue.stats()).depth === 0, 10_000, 20);
      return (await catalog.reader.get(id))!;
    }

    it('within one batch: upsert then remove, the upsert conflicting, ends removed (the remove waits for the replayed upsert)', async () => {
      const { id } = await catalog.writer.upsert(input('unpublish', '1000'), { source: 'publish' });
      await waitFor(() => catalog.reader.get(id));
      const conflictsBefore = es.state.conflicts;
      es.state.next = { id, before: () => signalsFlush(id) };
      // One append is one atomic script: the consumer reads both entries in one batch.
      await stream.append([upsertRequest('unpublish', '2000'), removeRequest(id)]);

      const doc = await settled(id);
      assert.equal(es.state.next, undefined, 'the concurrent change was injected');
      assert.equal(es.state.conflicts - conflictsBefore, 1, 'the upsert met a real version conflict');
      assert.equal(doc.removed, true, 'the unpublished listing stays unpublished');
      assert.equal(doc.removedReason, 'unpublished');
      assert.equal(doc.payment.amount, '2000');
      assert.equal(doc.signals.settleCount7d, 3, 'the concurrent signals survive the replayed upsert');
      assert.equal((await catalog.queue.stats()).deadLetters, 0);
    });

    it('across batches: a batch that fails while a newer batch for the same listing waits on it is applied first', async () => {
      const { id } = await catalog.writer.upsert(input('reprice', '1000'), { source: 'publish' });
      await waitFor(() => catalog.reader.get(id));
      const conflictsBefore = es.state.conflicts;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inFlight = new Promise<void>((resolve) => (entered = resolve));
      es.state.next = {
        id,
        before: async () => {
          entered();
          await gate;
          await signalsFlush(id);
        },
      };
      // Batch A: the upsert, held in its `_bulk` until released, then conflicting.
      await stream.append([upsertRequest('reprice', '2000')]);
      await inFlight;
      // Batch B: the remove, read while A is in flight; it must wait for A and for A's retry.
      await stream.append([removeRequest(id)]);
      await waitFor(async () => (await catalog.queue.stats()).pending === 2, 10_000, 20);
      release();

      const doc = await settled(id);
      assert.equal(es.state.conflicts - conflictsBefore, 1, 'the upsert met a real version conflict');
      assert.equal(doc.removed, true, 'the remove applies after the retried upsert, not before it');
      assert.equal(doc.payment.amount, '2000');
      assert.equal(doc.signals.settleCount7d, 3);
    });
  });
});
