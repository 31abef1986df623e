/**
 * Where a ranked search's Elasticsearch cost goes (docs/catalog-reads.md, "Where the cost goes"):
 * the search benchmark's query mix sent straight to Elasticsearch as the shipped ranked query, as
 * the fixed reference query (lab/lib/referenceQuery.ts), and with one part of the ranking
 * switched off at a time (lab/lib/searchVariants.ts), in alternating rounds on one settled index.
 * Reports Elasticsearch CPU per request, absolute and as a multiple of the reference, and the
 * profile API's split of the shipped query's time (rewrite, which holds the kNN search, query
 * clauses, collector, fetch), and how many of the mix's first pages each variant returns exactly
 * as shipped (the same listings in order, scores within 1e-4): a variant meant to keep the results
 * shows that it does.
 *
 *   npx tsx lab/bench/search-parts.ts --alias ALIAS [--connections 4] [--duration 5] [--rounds 3]
 *                                         [--force-merge N] [--only LABEL,LABEL] [--profile-variants]
 *
 * ALIAS is a kept catalog (bench-search --keep, bench-growth --keep). Only targets 127.0.0.1.
 */
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { buildCatalogSearch, pageBody, planRead, type ReadPlan } from '../../src/door.js';
import { parseReadRequest } from '../../src/door.js';
import { type RankingSettings } from '../../src/door.js';
import { createElasticsearchClient, createRedisClient, elasticsearchNodeUrls, storesFor } from '../../src/door.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { directSearchRequest, elasticsearchCpuMs, measure, median, type CpuProbe, type Measured, type Target } from '../lib/httpLoad.js';
import { describeSettled, settleIndex } from '../lib/indexSettle.js';
import { REFERENCE_PARAMS, referenceSearchBody } from '../lib/referenceQuery.js';
import { searchMix } from '../lib/searchQueryMix.js';
import { SEARCH_VARIANTS, type SearchVariant } from '../lib/searchVariants.js';

type Json = Record<string, unknown>;

/** The read's first page planned again with the variant's tunables: the same look-ups (typo verdict, vector, filter share) as the service's plan. */
function variantBody(planned: ReadPlan, base: RankingSettings, variant: SearchVariant, now: number): Json {
  const settings = variant.settings ? variant.settings(base) : base;
  const parts = (planned.text?.parts ?? []).map(({ q, reading, vector }) => ({ q, reading, ...(vector ? { vector } : {}) }));
  const share = planned.carried.filterShare !== undefined ? { filterShare: planned.carried.filterShare } : {};
  const body = pageBody(planRead(planned.request, { settings, tunables: 0, now, parts, ...share }));
  return variant.body ? variant.body(body) : body;
}

/** Each body's first page: listing ids in order, with their scores. */
async function firstPages(send: (body: Json) => Promise<Json>, bodies: Json[]): Promise<Array<Array<{ id: string; score: number }>>> {
  const pages = [];
  for (const body of bodies) {
    const answer = (await send({ ...body, _source: false })) as { hits: { hits: Array<{ _id: string; _score: number | null }> } };
    pages.push(answer.hits.hits.map((hit) => ({ id: hit._id, score: hit._score ?? 0 })));
  }
  return pages;
}

/** How many of the mix's first pages a variant returns exactly as shipped (the same listings in order, scores within 1e-4 relative). */
function sameAsShipped(shipped: Array<Array<{ id: string; score: number }>>, variant: Array<Array<{ id: string; score: number }>>): number {
  return variant.filter((page, i) => {
    const expected = shipped[i]!;
    return page.length === expected.length && page.every((hit, j) => hit.id === expected[j]!.id && Math.abs(hit.score - expected[j]!.score) <= 1e-4 * Math.max(1, Math.abs(expected[j]!.score)));
  }).length;
}

/** Sums the profile's time per phase over the mix: where the shipped query's time goes. */
async function profileSplit(send: (body: Json) => Promise<Json>, bodies: Json[]): Promise<Record<string, number>> {
  const split: Record<string, number> = {};
  const add = (key: string, ns: number) => (split[key] = (split[key] ?? 0) + ns / 1e6);
  for (const body of bodies) {
    const answer = (await send({ ...body, profile: true })) as { profile: { shards: Json[] } };
    for (const shard of answer.profile.shards) {
      const searches = shard.searches as Array<{ query: Array<{ type: string; description: string; time_in_nanos: number; children?: Json[] }>; rewrite_time: number; collector: Array<{ time_in_nanos: number }>; rescore?: Array<{ time_in_nanos: number }> }>;
      for (const search of searches) {
        add('rewrite (kNN search and its filter, term statistics)', search.rewrite_time);
        for (const node of search.query) add(node.type === 'BooleanQuery' && /FieldExistsQuery \[field=embedding\]/.test(node.description) ? 'kNN filter bitset' : node.type === 'DocAndScoreQuery' ? 'kNN hits' : 'ranked query (text clauses and factors)', node.time_in_nanos);
        for (const collector of search.collector) add('collector (top hits)', collector.time_in_nanos);
        for (const rescore of search.rescore ?? []) add('rescore (the factors over the rank window)', rescore.time_in_nanos);
      }
      const fetch = shard.fetch as { time_in_nanos?: number } | undefined;
      if (fetch?.time_in_nanos) add('fetch', fetch.time_in_nanos);
    }
  }
  for (const key of Object.keys(split)) split[key] = split[key]! / bodies.length;
  return split;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        connections: { type: 'string', default: '4' },
        duration: { type: 'string', default: '5' },
        rounds: { type: 'string', default: '3' },
        'force-merge': { type: 'string' },
        only: { type: 'string' },
        'profile-variants': { type: 'boolean', default: false },
      },
    },
    'usage: bench-search-parts --alias ALIAS [--connections N] [--duration S] [--rounds N] [--force-merge N] [--only LABEL,LABEL] [--profile-variants]',
  );
  if (!values.alias) fail('--alias is required (a catalog kept by bench-search --keep or bench-growth --keep)');
  const alias = values.alias;
  const options = {
    connections: numberOption('connections', values.connections),
    duration: numberOption('duration', values.duration, { integer: false }),
    rounds: numberOption('rounds', values.rounds),
  };
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-unused`, REDIS_PREFIX: `bench-search-parts:${Date.now().toString(36)}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const redis = createRedisClient(config.redisUrl);
  try {
    const settled = await settleIndex(elasticsearch, alias, values['force-merge'] ? { maxSegments: numberOption('force-merge', values['force-merge']) } : {});
    // The service's own planner: the tunables stored with the catalog, each query's typo verdict, vector and filter share.
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    const base = await ranking.refresh();
    const prepared: ReadPlan[] = [];
    for (const query of searchMix()) prepared.push(await search.plan(parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)))));
    const shareList = [...new Map(prepared.flatMap((p) => (p.carried.filterShare !== undefined ? [[JSON.stringify(p.request.filters), p.carried.filterShare] as const] : []))).entries()];
    process.stderr.write(`filter shares: ${shareList.map(([f, s]) => `${f} ${s.toFixed(3)}`).join(', ')}\n`);
    if (!prepared.some((p) => p.text?.parts.some((part) => part.vector))) process.stderr.write('WARNING: no query embedding (model not installed): kNN rows equal the others\n');
    const now = Date.now();
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    const cpu: CpuProbe = { esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => undefined };
    const only = values.only?.split(',').map((s) => s.trim());
    const variants = SEARCH_VARIANTS.filter((v) => !only || only.some((o) => v.label.includes(o)) || v.label === 'shipped ranking');
    const targets: Target[] = [
      { name: 'reference query', url: esUrl, requests: prepared.map((p) => directSearchRequest(alias, REFERENCE_PARAMS, referenceSearchBody(p.request))) },
      ...variants.map((variant) => ({ name: variant.label, url: esUrl, requests: prepared.map((p) => directSearchRequest(alias, p.params, variantBody(p, base, variant, now))) })),
    ];
    for (const target of targets) await measure(target, options, cpu, 2); // warm caches
    const runs = new Map<string, Measured[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const target of targets) runs.get(target.name)!.push(await measure(target, options, cpu));
      process.stderr.write(`round ${round + 1}/${options.rounds} done\n`);
    }
    const send = async (body: Json) => (await elasticsearch.search({ index: alias, ...body } as never)) as unknown as Json;
    const split = await profileSplit(send, prepared.map((p) => variantBody(p, base, SEARCH_VARIANTS[0]!, now)));
    const pagesOf = (variant: SearchVariant) => firstPages(send, prepared.map((p) => variantBody(p, base, variant, now)));
    // The shipped query is sent again among the variants: where many listings tie (the 1M growth
    // catalog repeats its texts) its own count is the baseline the others are read against.
    const shippedPages = await pagesOf(SEARCH_VARIANTS[0]!);
    const same = new Map<string, number>();
    for (const variant of variants) same.set(variant.label, sameAsShipped(shippedPages, await pagesOf(variant)));
    const reference = median(runs.get('reference query')!);
    const shipped = median(runs.get('shipped ranking')!);
    const lines = [
      describeSettled(alias, settled),
      `${prepared.length} queries (bench-search's mix), ${options.connections} connections, median of ${options.rounds} alternating ${options.duration} s rounds; load average ${loadavg()[0]!.toFixed(2)} after`,
      '',
      '| query | ES CPU ms/search | x reference | saved vs shipped | first page as shipped | p50 | req/s | errors |',
      '|---|---|---|---|---|---|---|---|',
      ...targets.map((target) => {
        const m = median(runs.get(target.name)!);
        const saved = target.name === 'shipped ranking' || target.name === 'reference query' ? '' : `${(shipped.esCpuMs - m.esCpuMs).toFixed(2)} ms`;
        const asShipped = same.has(target.name) ? `${same.get(target.name)} of ${prepared.length}` : '';
        return `| ${target.name} | ${m.esCpuMs.toFixed(2)} | ${(m.esCpuMs / reference.esCpuMs).toFixed(2)}x | ${saved} | ${asShipped} | ${m.p50} ms | ${m.rps.toFixed(0)} | ${m.errors} |`;
      }),
      '',
      'profile API, shipped ranking, mean ms per search over the mix (profiling inflates every figure; the shares are what count):',
      '',
      ...Object.entries(split).map(([part, ms]) => `- ${part}: ${ms.toFixed(2)} ms`),
    ];
    if (values['profile-variants']) {
      // The profile's own time per part, one request at a time: no other request or process shares
      // the figure, so it separates variants whose CPU rounds are within the machine's noise.
      lines.push('', 'profile API per variant, mean ms per search over the mix, lowest of 3 passes (rewrite holds the kNN search and its filter):', '');
      lines.push('| query | rewrite | ranked query | collector | total |', '|---|---|---|---|---|');
      for (const variant of variants) {
        const passes: Record<string, number>[] = [];
        for (let pass = 0; pass < 3; pass++) passes.push(await profileSplit(send, prepared.map((p) => variantBody(p, base, variant, now))));
        const lowest = (pick: (split: Record<string, number>) => number) => Math.min(...passes.map(pick)).toFixed(2);
        const sum = (split: Record<string, number>) => Object.values(split).reduce((a, b) => a + b, 0);
        const part = (prefix: string) => (split: Record<string, number>) => Object.entries(split).filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
        lines.push(`| ${variant.label} | ${lowest(part('rewrite'))} | ${lowest(part('ranked query'))} | ${lowest(part('collector'))} | ${lowest(sum)} |`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-search-parts', main);
