import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { clusterSeeds } from '../../src/core/redisTarget.js';
import { PATHS } from '../../src/http/paths.js';

/**
 * docker-compose.yml describes the production shape (issue 14) and cannot run here (no Docker
 * engine), so these checks hold it to the code: the gateways' variables are ones the service reads
 * and loads without a problem, and every name that wires the pieces together (Elasticsearch seed
 * hosts, Redis Cluster nodes, the proxy's upstreams, the health check) names what exists.
 */
interface Service {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const named = (test: (service: Service) => boolean) => services.filter(([, service]) => test(service)).map(([name]) => name);
const elasticsearchNodes = named((s) => typeof s.build === 'object' && s.build.dockerfile === 'deploy/elasticsearch.Dockerfile');
const redisNodes = named((s) => (s.command ?? []).join(' ').includes('--cluster-enabled yes'));
const gateways = named((s) => s.build === '.');
const documented = [read('README.md'), ...['elasticsearch-cluster.md', 'catalog-write.md'].map((doc) => read(`docs/${doc}`))].join('\n');

describe('unit: the production shape (docker-compose.yml)', () => {
  it('has 3 Elasticsearch nodes that form one cluster, with the hunspell dictionary the index needs', () => {
    assert.equal(elasticsearchNodes.length, 3);
    for (const name of elasticsearchNodes) {
      const env = compose.services[name]!.environment!;
      assert.equal(env['node.name'], name);
      assert.deepEqual(env['discovery.seed_hosts']!.split(','), elasticsearchNodes);
      assert.deepEqual(env['cluster.initial_master_nodes']!.split(','), elasticsearchNodes);
    }
    const image = read('deploy/elasticsearch.Dockerfile');
    assert.match(image, /hunspell-en-us/);
    assert.match(image, /\/dictionaries\/ \/usr\/share\/elasticsearch\/config\/hunspell\//);
    // The locale the listing index stems with is a dictionary the image builds (the roots one, by scripts/hunspell-roots.sh).
    const locale = /"locale": "([^"]+)"/.exec(read('mappings/listings.json'))![1]!;
    assert.match(image, new RegExp(`/dictionaries/${locale}[ /]`));
    assert.match(image, /hunspell-roots\.sh/);
  });

  it('has a Redis Cluster of 6 nodes (3 primaries with a replica each) that persists its data', () => {
    assert.equal(redisNodes.length, 6);
    for (const name of redisNodes) assert.ok(compose.services[name]!.command!.includes('--appendonly'), `${name} keeps no append-only file`);
    const create = compose.services['redis-cluster']!.command!.join(' ');
    assert.match(create, /--cluster create/);
    assert.match(create, /--cluster-replicas 1/);
  });

  it('runs 2 identical gateways whose variables the service reads and loads, pointing at those clusters', () => {
    assert.equal(gateways.length, 2);
    const [first, second] = gateways.map((name) => compose.services[name]!.environment!);
    assert.deepEqual(first, second);
    for (const variable of Object.keys(first!)) assert.ok(documented.includes(`\`${variable}\``), `${variable} is not a documented variable`);
    const config = loadConfig(first!);
    assert.deepEqual(
      config.elasticsearchUrl.split(',').map((url) => new URL(url).hostname),
      elasticsearchNodes,
    );
    assert.deepEqual(
      clusterSeeds(config.redisUrl)!.map((seed) => seed.host),
      redisNodes,
    );
    // Every listing on every node: one node can go down and reads keep answering.
    assert.equal(config.listingsLayout.replicas, elasticsearchNodes.length - 1);
    assert.equal(config.host, '0.0.0.0');
    const health = compose.services[gateways[0]!]!.healthcheck!.test.join(' ');
    assert.ok(health.includes(`http://127.0.0.1:${config.port}${PATHS.readyz}`), health);
  });

  it('puts the proxy in front of exactly those gateways, on the port they listen on', () => {
    const proxy = compose.services['proxy']!;
    assert.ok(proxy.volumes!.some((volume) => volume.startsWith('./deploy/nginx.conf:')));
    const upstream = /upstream gateways \{([^}]*)\}/.exec(read('deploy/nginx.conf'))![1]!;
    const servers = [...upstream.matchAll(/server ([\w-]+):(\d+)/g)].map(([, host, port]) => `${host}:${port}`);
    const port = loadConfig(compose.services[gateways[0]!]!.environment!).port;
    assert.deepEqual(servers, gateways.map((name) => `${name}:${port}`));
  });

  it('ships the embedding model where the service looks for it by default', () => {
    const dockerfile = read('Dockerfile');
    const modelDir = loadConfig({}).embeddingModelDir;
    const copied = /COPY --from=build \/app\/(\S+) \.\/(\S+)/g;
    const targets = [...dockerfile.matchAll(copied)].map(([, , to]) => to!);
    assert.ok(targets.some((to) => modelDir.startsWith(to!)), `no COPY puts ${modelDir} in the image: ${targets.join(', ')}`);
    assert.match(dockerfile, /services\.sh model && test -s/);
  });
});
