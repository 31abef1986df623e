/**
 * What the kNN side of a ranked search costs by the vector's index options and the index's segment
 * count (issue 46: the kNN clause is most of a ranked search's cost above the reference query).
 * The catalog ALIAS is copied once per option into `ALIAS-knn-OPTION` (the same listings, the same
 * mapping but for `embedding.index_options`), each copy force-merged to at most the same number of segments;
 * then, in alternating rounds, the search mix's kNN clause alone, the shipped ranked query and the
 * reference query run against every copy, and each copy's first pages are compared with the
 * int8 copy's (the shipped option): the same listings in order, or how many of the 20 nearest are
 * shared.
 *
 *   npx tsx lab/bench/knn-options.ts --alias ALIAS [--options int8_hnsw,bbq_hnsw,hnsw]
 *        [--segments N] [--connections 4] [--duration 5] [--rounds 3] [--drop]
 *
 * ALIAS is a kept catalog (bench-search --keep). Only targets 127.0.0.1.
 */
import { loadavg } from 'node:os';
import { loadConfig, createLogger, buildCatalogSearch, pageBody, parseReadRequest, storedVector } from '../../src/door.js';
import { createElasticsearchClient, createRedisClient, elasticsearchNodeUrls, storesFor } from '../../src/door.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import type { ElasticsearchClient, ReadPlan } from '../../src/door.js';
import { directSearchRequest, elasticsearchCpuMs, measure, median, type CpuProbe, type Measured, type Target } from '../lib/httpLoad.js';
import { settleIndex } from '../lib/indexSettle.js';
import { REFERENCE_PARAMS, referenceSearchBody } from '../lib/referenceQuery.js';
import { searchMix } from '../lib/searchQueryMix.js';
import { findKnn } from '../lib/searchVariants.js';

type Json = Record<string, unknown>;

async function copyWith(elasticsearch: ElasticsearchClient, alias: string, copy: string, option: string): Promise<void> {
  if (await elasticsearch.indices.exists({ index: copy })) return;
  const mappings = Object.values(await elasticsearch.indices.getMapping({ index: alias }))[0]!.mappings as Json;
  const properties = mappings.properties as Record<string, Json>;
  properties.embedding = { ...properties.embedding, index_options: { type: option } };
  const analysis = (Object.values(await elasticsearch.indices.getSettings({ index: alias }))[0]!.settings as Json).index as Json;
  const settings = { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1', analysis: analysis.analysis, similarity: analysis.similarity };
  await elasticsearch.indices.create({ index: copy, settings: settings as never, mappings: mappings as never });
  let after: unknown[] | undefined;
  let copied = 0;
  for (;;) {
    const page = await elasticsearch.search<Json>({ index: alias, size: 2000, sort: [{ id: 'asc' }], ...(after ? { search_after: after as never } : {}) });
    const hits = page.hits.hits;
    if (hits.length === 0) break;
    const operations = hits.flatMap((hit) => {
      const vector = storedVector(hit._source as never);
      return [{ index: { _index: copy, _id: hit._id } }, { ...hit._source, ...(vector ? { embedding: vector } : {}) }];
    });
    const result = await elasticsearch.bulk({ operations }, { requestTimeout: 600_000 });
    if (result.errors) throw new Error(`bulk into ${copy} failed: ${JSON.stringify(result.items.find((i) => i.index?.error))}`);
    copied += hits.length;
    after = hits[hits.length - 1]!.sort;
    process.stderr.write(`\r${copy}: ${copied}`);
  }
  process.stderr.write('\n');
  await elasticsearch.indices.putSettings({ index: copy, settings: { refresh_interval: '1s' } });
}

async function firstIds(elasticsearch: ElasticsearchClient, index: string, bodies: Json[]): Promise<string[][]> {
  const pages: string[][] = [];
  for (const body of bodies) {
    const answer = await elasticsearch.search({ index, ...body, _source: ['id'] } as never);
    pages.push(answer.hits.hits.map((hit) => String((hit._source as Json).id)));
  }
  return pages;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        options: { type: 'string', default: 'int8_hnsw,bbq_hnsw,hnsw' },
        segments: { type: 'string', default: '16' },
        connections: { type: 'string', default: '4' },
        duration: { type: 'string', default: '5' },
        rounds: { type: 'string', default: '3' },
        drop: { type: 'boolean', default: false },
      },
    },
    'usage: bench-knn-options --alias ALIAS [--options A,B] [--segments N] [--connections N] [--duration S] [--rounds N] [--drop]',
  );
  if (!values.alias) fail('--alias is required (a catalog kept by bench-search --keep)');
  const alias = values.alias;
  const indexOptions = values.options!.split(',').map((s) => s.trim());
  const segments = numberOption('segments', values.segments);
  const load = { connections: numberOption('connections', values.connections), duration: numberOption('duration', values.duration, { integer: false }) };
  const rounds = numberOption('rounds', values.rounds);
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-unused`, REDIS_PREFIX: `bench-knn-options:${Date.now().toString(36)}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 600_000 });
  const redis = createRedisClient(config.redisUrl);
  const copies = indexOptions.map((option) => ({ option, index: `${alias}-knn-${option}` }));
  try {
    const { search } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    const plans: ReadPlan[] = [];
    for (const query of searchMix()) plans.push(await search.plan(parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)))));
    const ranked = plans.map((plan) => pageBody(plan));
    const knnOnly = ranked.map((body) => ({ size: 20, _source: false, track_total_hits: false, query: findKnn(body) ?? fail('a mix search without a kNN clause') }));
    const shape: string[] = [];
    for (const copy of copies) {
      await copyWith(elasticsearch, alias, copy.index, copy.option);
      const settled = await settleIndex(elasticsearch, copy.index, { maxSegments: segments });
      const stats = await elasticsearch.indices.stats({ index: copy.index, metric: ['segments', 'store'] });
      shape.push(`${copy.index}: ${settled.segments} segments, ${(Number(stats._all.primaries?.store?.size_in_bytes ?? 0) / 1e6).toFixed(0)} MB`);
    }
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    const cpu: CpuProbe = { esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => undefined };
    const targets: Target[] = copies.flatMap(({ option, index }) => [
      { name: `${option} reference`, url: esUrl, requests: plans.map((p) => directSearchRequest(index, REFERENCE_PARAMS, referenceSearchBody(p.request))) },
      { name: `${option} kNN alone`, url: esUrl, requests: knnOnly.map((body) => directSearchRequest(index, { filter_path: 'hits.hits._id' }, body)) },
      { name: `${option} ranked`, url: esUrl, requests: plans.map((p, i) => directSearchRequest(index, p.params, ranked[i]!)) },
    ]);
    for (const target of targets) await measure(target, load, cpu, 2);
    const runs = new Map<string, Measured[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) runs.get(target.name)!.push(await measure(target, load, cpu));
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    const basePages = await firstIds(elasticsearch, copies[0]!.index, ranked);
    const baseNearest = await firstIds(elasticsearch, copies[0]!.index, knnOnly);
    const lines = [
      ...shape,
      `${plans.length} queries (bench-search's mix), ${load.connections} connections, median of ${rounds} alternating ${load.duration} s rounds; load average ${loadavg()[0]!.toFixed(2)} after`,
      '',
      '| index options | reference ES ms | kNN alone ES ms (x ref) | ranked ES ms (x ref) | first pages as the first option | nearest 20 shared |',
      '|---|---|---|---|---|---|',
    ];
    for (const { option, index } of copies) {
      const [ref, knn, rank] = ['reference', 'kNN alone', 'ranked'].map((part) => median(runs.get(`${option} ${part}`)!).esCpuMs) as [number, number, number];
      const pages = await firstIds(elasticsearch, index, ranked);
      const nearest = await firstIds(elasticsearch, index, knnOnly);
      const samePages = pages.filter((page, i) => page.join() === basePages[i]!.join()).length;
      const shared = nearest.reduce((sum, ids, i) => sum + ids.filter((id) => baseNearest[i]!.includes(id)).length, 0);
      const total = baseNearest.reduce((sum, ids) => sum + ids.length, 0);
      lines.push(`| ${option} | ${ref.toFixed(2)} | ${knn.toFixed(2)} (${(knn / ref).toFixed(2)}x) | ${rank.toFixed(2)} (${(rank / ref).toFixed(2)}x) | ${samePages} of ${pages.length} | ${shared} of ${total} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    if (values.drop) for (const { index } of copies) await elasticsearch.indices.delete({ index, ignore_unavailable: true });
  } finally {
    await elasticsearch.close();
    redis.disconnect();
  }
}

runMain('bench-knn-options', main);
