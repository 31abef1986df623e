import assert from 'node:assert/strict';
import express, { Router } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/logger.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { ensureListingIndex, IncompatibleIndexError, loadIndexDefinition } from '../src/store/elasticsearch/listingIndex.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { API_VERSION } from '../src/version.js';
import { dropDeploymentData } from '../src/store/deploymentData.js';
import { clusterSeeds } from '../src/core/redisTarget.js';
import { startHarness, testConfig, type Harness } from './support/harness.js';

const silent = createLogger('error', { silent: true });

describe('foundation', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  describe('health and readiness', () => {
    it('healthz answers 200 while the process runs', async () => {
      const res = await request(h.app).get('/healthz').expect(200);
      assert.equal(res.body.status, 'ok');
    });

    it('readyz answers 200 when Elasticsearch and Redis answer', async () => {
      const res = await request(h.app).get('/readyz').expect(200);
      assert.deepEqual(res.body.checks, { elasticsearch: 'ok', redis: 'ok', listingIndex: 'ok' });
    });

    it('readyz answers 503 naming Elasticsearch when it is unreachable', async () => {
      const config = testConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:1' });
      const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 500 });
      const app = createApp({ config, logger: silent, elasticsearch, redis: h.redis });
      const res = await request(app).get('/readyz').expect(503);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.body.code, 'not_ready');
      assert.deepEqual(res.body.failing, ['elasticsearch']);
      assert.match(res.body.detail, /elasticsearch/);
      await elasticsearch.close();
    });

    it('readyz answers 503 naming Redis when it is unreachable', async () => {
      const config = testConfig({ REDIS_URL: 'redis://127.0.0.1:1', LISTINGS_ALIAS: h.config.listingsAlias, LISTINGS_INDEX: h.config.listingsIndex });
      const redis = createRedisClient(config.redisUrl, { lazyConnect: true });
      redis.on('error', () => {});
      const app = createApp({ config, logger: silent, elasticsearch: h.elasticsearch, redis });
      const res = await request(app).get('/readyz').expect(503);
      assert.deepEqual(res.body.failing, ['redis']);
      redis.disconnect();
    });
  });

  describe('errors are problem+json with a code', () => {
    it('unknown route: 404 not_found', async () => {
      const res = await request(h.app).get('/no/such/route').expect(404);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.body.code, 'not_found');
      assert.equal(res.body.status, 404);
      assert.equal(typeof res.body.title, 'string');
      assert.equal(typeof res.body.type, 'string');
      assert.match(res.body.detail, /\/no\/such\/route/);
    });

    it('malformed JSON: 400 invalid_json', async () => {
      const res = await request(h.app).post('/anything').set('Content-Type', 'application/json').send('{"a":').expect(400);
      assert.equal(res.body.code, 'invalid_json');
    });

    it('body over 64 KiB: 413 payload_too_large', async () => {
      const big = JSON.stringify({ blob: 'x'.repeat(65 * 1024) });
      const res = await request(h.app).post('/anything').set('Content-Type', 'application/json').send(big).expect(413);
      assert.equal(res.body.code, 'payload_too_large');
    });

    it('a thrown error: 500 internal without internals', async () => {
      const boom = Router();
      boom.get('/boom', () => {
        throw new Error('secret connection string postgres://user:pw@db');
      });
      boom.get('/boom-async', async () => {
        await Promise.resolve();
        throw new TypeError('cannot read properties of undefined (secret)');
      });
      const app = createApp({ config: h.config, logger: silent, elasticsearch: h.elasticsearch, redis: h.redis, routers: [boom] });
      for (const path of ['/boom', '/boom-async']) {
        const res = await request(app).get(path).set('X-Request-Id', 'trace-500').expect(500);
        assert.equal(res.body.code, 'internal');
        assert.doesNotMatch(JSON.stringify(res.body), /secret|postgres|stack|TypeError/);
        assert.equal(res.body.instance, 'urn:request:trace-500');
      }
    });

    it('Elasticsearch unreachable during a request: 503 search_unavailable', async () => {
      const config = testConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:1' });
      const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 500 });
      const searchy = Router();
      searchy.get('/probe-search', async (_req, res) => {
        res.json(await elasticsearch.search({ index: config.listingsAlias }));
      });
      const app = createApp({ config, logger: silent, elasticsearch, redis: h.redis, routers: [searchy] });
      const res = await request(app).get('/probe-search').expect(503);
      assert.equal(res.body.code, 'search_unavailable');
      assert.ok(res.headers['retry-after']);
      await elasticsearch.close();
    });
    it('Redis unreachable during a request: 503 service_unavailable, not 500', async () => {
      const config = testConfig({ REDIS_URL: 'redis://127.0.0.1:1', LISTINGS_ALIAS: h.config.listingsAlias, LISTINGS_INDEX: h.config.listingsIndex });
      const redis = createRedisClient(config.redisUrl);
      redis.on('error', () => {});
      const writes = Router();
      writes.post('/probe-redis', async (_req, res) => {
        await redis.xadd('some-stream', '*', 'k', 'v');
        res.status(202).end();
      });
      const app = createApp({ config, logger: silent, elasticsearch: h.elasticsearch, redis, routers: [writes] });
      const res = await request(app).post('/probe-redis').expect(503);
      assert.equal(res.body.code, 'service_unavailable');
      assert.ok(res.headers['retry-after']);
      redis.disconnect();
    });
  });

  describe('request ids and version header', () => {
    it('keeps and echoes an incoming X-Request-Id', async () => {
      const res = await request(h.app).get('/healthz').set('X-Request-Id', 'abc-123').expect(200);
      assert.equal(res.headers['x-request-id'], 'abc-123');
    });

    it('makes one when none (or a malformed one) is sent', async () => {
      const a = await request(h.app).get('/healthz').expect(200);
      assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const b = await request(h.app).get('/healthz').set('X-Request-Id', 'bad id with spaces').expect(200);
      assert.notEqual(b.headers['x-request-id'], 'bad id with spaces');
    });

    it('sends X-API-Version on every response, errors included', async () => {
      for (const path of ['/healthz', '/nope']) {
        const res = await request(h.app).get(path);
        assert.equal(res.headers['x-api-version'], API_VERSION);
      }
    });
  });

  describe('listing index bootstrap', () => {
    it('creates the versioned index behind the alias on an empty cluster, with the ranking tunables', async () => {
      const config = testConfig();
      const result = await ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex);
      try {
        assert.equal(result.created, true);
        assert.equal(result.index, config.listingsIndex);
        const alias = await h.elasticsearch.indices.getAlias({ name: config.listingsAlias });
        assert.deepEqual(Object.keys(alias), [config.listingsIndex]);
        const mapping = await h.elasticsearch.indices.getMapping({ index: config.listingsAlias });
        const meta = Object.values(mapping)[0]?.mappings._meta as { ranking?: { fields?: object } };
        assert.ok(meta.ranking?.fields, 'ranking tunables live in _meta.ranking');
        const settings = await h.elasticsearch.indices.getSettings({ index: config.listingsIndex });
        const similarity = Object.values(settings)[0]?.settings?.index?.similarity as Record<string, { k1?: string }>;
        assert.ok(similarity.catalog_bm25?.k1, 'BM25 k1 lives in the similarity settings');
      } finally {
        await dropDeploymentData(h.elasticsearch, h.redis, config);
      }
    });

    it('is idempotent on a second start and keeps operator-tuned values', async () => {
      const config = testConfig();
      try {
        await ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex);
        const definition = loadIndexDefinition();
        const tuned = { ...definition.mappings._meta, ranking: { ...(definition.mappings._meta?.ranking as object), tunedBy: 'operator' } };
        await h.elasticsearch.indices.putMapping({ index: config.listingsAlias, _meta: tuned });
        const second = await ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex);
        assert.equal(second.created, false);
        assert.deepEqual(second.addedFields, []);
        const mapping = await h.elasticsearch.indices.getMapping({ index: config.listingsAlias });
        const meta = Object.values(mapping)[0]?.mappings._meta as { ranking?: { tunedBy?: string } };
        assert.equal(meta.ranking?.tunedBy, 'operator');
      } finally {
        await dropDeploymentData(h.elasticsearch, h.redis, config);
      }
    });

    it('refuses an alias pointing at an index with an incompatible mapping, naming the field', async () => {
      const config = testConfig();
      try {
        await h.elasticsearch.indices.create({
          index: config.listingsIndex,
          mappings: { _meta: { schemaVersion: 1 }, properties: { payment: { properties: { amount: { type: 'keyword' } } } } },
          aliases: { [config.listingsAlias]: { is_write_index: true } },
        });
        await assert.rejects(ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex), (err: unknown) => {
          assert.ok(err instanceof IncompatibleIndexError);
          assert.match(err.message, /payment\.amount.*keyword.*expected long/);
          return true;
        });
      } finally {
        await dropDeploymentData(h.elasticsearch, h.redis, config);
      }
    });

    it('refuses an index of an older schemaVersion (other text analysis) and says to run npm run reindex', async () => {
      const config = testConfig();
      try {
        await h.elasticsearch.indices.create({
          index: config.listingsIndex,
          mappings: { _meta: { schemaVersion: 1 }, properties: { id: { type: 'keyword' } } },
          aliases: { [config.listingsAlias]: { is_write_index: true } },
        });
        await assert.rejects(ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex), /schemaVersion 1 predates 2.*npm run reindex/);
      } finally {
        await dropDeploymentData(h.elasticsearch, h.redis, config);
      }
    });

    it('refuses an index that this service did not create', async () => {
      const config = testConfig();
      try {
        await h.elasticsearch.indices.create({ index: config.listingsIndex, aliases: { [config.listingsAlias]: {} } });
        await assert.rejects(ensureListingIndex(h.elasticsearch, config.listingsAlias, config.listingsIndex), /schemaVersion/);
      } finally {
        await dropDeploymentData(h.elasticsearch, h.redis, config);
      }
    });
  });

  describe('configuration', () => {
    it('has working defaults', () => {
      const config = loadConfig({});
      assert.equal(config.port, 8080);
      assert.equal(config.listingsAlias, 'listings');
      assert.equal(config.listingsIndex, 'listings-v1');
      assert.equal(config.bodyLimitBytes, 65536);
    });

    it('reports every bad value, one clear line each', () => {
      assert.throws(
        () => loadConfig({ PORT: 'eighty', ELASTICSEARCH_URL: 'not a url', REDIS_URL: 'http://x', LISTINGS_ALIAS: 'Bad Name', LOG_LEVEL: 'loud' }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.equal(err.problems.length, 5);
          assert.match(err.problems[0]!, /^PORT="eighty": must be an integer between 0 and 65535$/);
          assert.match(err.message, /ELASTICSEARCH_URL="not a url": must be a URL/);
          assert.match(err.message, /REDIS_URL="http:\/\/x": must be a redis:, rediss: or redis\+cluster: URL/);
          assert.match(err.message, /LISTINGS_ALIAS="Bad Name": must be a lower-case Elasticsearch index name/);
          assert.match(err.message, /LOG_LEVEL="loud": must be one of/);
          return true;
        },
      );
    });

    it('validates the embedding worker settings (batch size, idle poll interval)', () => {
      assert.deepEqual(loadConfig({}).embedding, { batchSize: 32, idleMs: 1000 });
      assert.deepEqual(loadConfig({ EMBEDDING_BATCH_SIZE: '8', EMBEDDING_IDLE_MS: '250' }).embedding, { batchSize: 8, idleMs: 250 });
      assert.throws(() => loadConfig({ EMBEDDING_BATCH_SIZE: '0', EMBEDDING_IDLE_MS: 'soon' }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /EMBEDDING_BATCH_SIZE="0": must be an integer between 1 and 1024/);
        assert.match(err.message, /EMBEDDING_IDLE_MS="soon": must be an integer between 10 and 600000/);
        return true;
      });
    });

    it('a single Redis is the default; REDIS_CLUSTER_NODES or a redis+cluster:// URL names a Redis Cluster', () => {
      assert.equal(loadConfig({}).redisUrl, 'redis://127.0.0.1:6379');
      assert.equal(loadConfig({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-2:7001,[::1]:7002 ' }).redisUrl, 'redis+cluster://10.0.0.1:7000,redis-2:7001,[::1]:7002');
      assert.equal(loadConfig({ REDIS_URL: 'redis+cluster://a:7000,b:7001' }).redisUrl, 'redis+cluster://a:7000,b:7001');
      assert.deepEqual(clusterSeeds('redis+cluster://a:7000,[::1]:7002,c'), [{ host: 'a', port: 7000 }, { host: '::1', port: 7002 }, { host: 'c', port: 6379 }]);
      assert.equal(clusterSeeds('redis://a:6379'), undefined);
      for (const [env, problem] of [
        [{ REDIS_CLUSTER_NODES: 'a:7000,b:99999' }, /REDIS_CLUSTER_NODES="a:7000,b:99999": Redis Cluster nodes: "b:99999" is not host:port/],
        [{ REDIS_CLUSTER_NODES: 'a:7000,http://b' }, /"http:\/\/b" is not host:port/],
        [{ REDIS_URL: 'redis+cluster:a:7000' }, /must be redis\+cluster:\/\/host:port,host:port/],
        [{ REDIS_URL: 'redis+cluster://' }, /must name at least one Redis Cluster node/],
      ] as const) {
        assert.throws(() => loadConfig(env), problem);
      }
    });

    it('rejects an alias equal to the index name', () => {
      assert.throws(() => loadConfig({ LISTINGS_ALIAS: 'same', LISTINGS_INDEX: 'same' }), /must differ/);
    });
  });

  it('express itself is the supported major', () => {
    assert.equal(typeof express.Router, 'function');
  });
});
