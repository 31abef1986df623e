import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { parseRateRule } from '../../src/config/rateLimitSettings.js';

/** The problems a configuration is refused with, one line per variable. */
const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('unit: configuration from the environment', () => {
  it('defaults: a single local Elasticsearch and Redis, rate limits on, reads unlimited', () => {
    const config = loadConfig({});
    assert.equal(config.elasticsearchUrl, 'http://127.0.0.1:9200');
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379');
    assert.deepEqual(config.rateLimits.announce, { limit: 600, windowMs: 60_000 });
    assert.equal(config.rateLimits.reads, undefined);
    assert.deepEqual(config.trustProxy, []);
    assert.equal(config.cursorSecret, undefined);
  });

  it('an empty variable means the default, as unset', () => {
    assert.equal(loadConfig({ PORT: '', LOG_LEVEL: '' }).port, 8080);
  });

  it('every bad variable is reported at once, by name and value, and the service does not start', () => {
    const found = problems({ PORT: '70000', LOG_LEVEL: 'loud', REDIS_PREFIX: 'has space', CURSOR_SECRET: 'short', FACILITATOR_NETWORKS: 'base' });
    assert.equal(found.length, 5, found.join('\n'));
    assert.ok(found.some((p) => p.startsWith('PORT="70000": must be an integer between 0 and 65535')));
    assert.ok(found.some((p) => p.startsWith('CURSOR_SECRET="short": must be at least 16 characters')));
  });

  it('integers: digits only, within their bounds', () => {
    for (const value of ['1e3', '3.5', '0x10', 'many']) assert.equal(problems({ PROBE_TIMEOUT_MS: value }).length, 1, value);
    assert.equal(loadConfig({ PROBE_TIMEOUT_MS: ' 500 ' }).announce.probeTimeoutMs, 500);
  });

  it('rate rules: <requests>/<window> or off, windows from 100 ms to 24 h', () => {
    assert.deepEqual(parseRateRule('10/30s'), { limit: 10, windowMs: 30_000 });
    assert.deepEqual(parseRateRule(' 5 / m '), { limit: 5, windowMs: 60_000 });
    assert.equal(parseRateRule('OFF'), undefined);
    for (const bad of ['0/1m', '10/50ms', '10/25h', '10 per minute', '-1/1m']) assert.equal(typeof parseRateRule(bad), 'string', bad);
    assert.equal(loadConfig({ RATE_LIMIT_READS: '100/1s' }).rateLimits.reads?.limit, 100);
  });

  it('cross-variable mistakes: the alias and index must differ; active health checks not rarer than idle ones', () => {
    assert.equal(problems({ LISTINGS_ALIAS: 'cat', LISTINGS_INDEX: 'cat' }).length, 1);
    assert.equal(problems({ HEALTH_ACTIVE_INTERVAL_MS: '7200000', HEALTH_IDLE_INTERVAL_MS: '3600000' }).length, 1);
  });

  it('Redis: REDIS_CLUSTER_NODES wins over REDIS_URL and is checked node by node', () => {
    assert.equal(loadConfig({ REDIS_CLUSTER_NODES: 'a:7000, b:7001', REDIS_URL: 'redis://x' }).redisUrl, 'redis+cluster://a:7000,b:7001');
    assert.match(problems({ REDIS_CLUSTER_NODES: 'a:7000,b:99999' })[0]!, /"b:99999" is not host:port/);
    assert.equal(problems({ REDIS_URL: 'http://127.0.0.1:6379' }).length, 1);
  });

  it('Elasticsearch: one URL or a list of http(s) URLs, each checked', () => {
    assert.equal(loadConfig({ ELASTICSEARCH_URL: 'http://a:9200,https://b:9200' }).elasticsearchUrl, 'http://a:9200,https://b:9200');
    assert.match(problems({ ELASTICSEARCH_URL: 'http://a:9200,ftp://b' })[0]!, /ftp:\/\/b: must be a http: or https: URL/);
  });

  it('TRUST_PROXY and PROBE_ALLOW take addresses, CIDRs (and presets / host:port), nothing else', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1' }).trustProxy, ['loopback', '10.0.0.0/8', '::1']);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '*']) assert.equal(problems({ TRUST_PROXY: bad }).length, 1, bad);
    assert.deepEqual(loadConfig({ PROBE_ALLOW: '127.0.0.0/8,[::1]:8080' }).announce.probeAllow, ['127.0.0.0/8', '[::1]:8080']);
    assert.equal(problems({ PROBE_ALLOW: 'localhost' }).length, 1);
  });
});
