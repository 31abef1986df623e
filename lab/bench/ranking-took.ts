/**
 * Ranking cost one query at a time (issue 10's cost target, README "Ranking cost"): Elasticsearch's
 * own `took` for the full ranking and for BM25 alone, sent straight to Elasticsearch one request at
 * a time, alternating per query, so concurrency and queueing on a shared machine do not enter it.
 *
 *   npx tsx lab/bench/ranking-took.ts --alias bench-search-xxx     an index of bench-search --keep
 *   options: --rounds N (default 20) --index NAME (send the same bodies to another index, e.g. a
 *            copy with other settings) --variant V (repeatable: also measure the full body changed
 *            by V: a name of VARIANTS, or k=K,nc=N for another kNN k and num_candidates)
 *
 * Prints the mean and median `took` per query kind, the ratio of means to BM25 alone, and the load
 * average before and after (took is in whole milliseconds, so the mean separates kinds better).
 */
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { buildCatalogSearch } from '../../src/door.js';
import { pageBody, planRead } from '../../src/door.js';
import { parseReadRequest } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { dropRedisPrefix } from '../../src/door.js';
import { bm25Alone } from '../lib/bm25Alone.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { searchMix } from '../lib/searchQueryMix.js';
import { storesFor } from '../../src/door.js';

type Body = Record<string, unknown>;

/** Walks a query body and changes every `knn` clause (experiments on its parameters). */
function mapKnn(body: unknown, change: (knn: Body) => Body | undefined): unknown {
  if (Array.isArray(body)) return body.map((item) => mapKnn(item, change)).filter((item) => item !== undefined);
  if (body === null || typeof body !== 'object') return body;
  const out: Body = {};
  for (const [key, value] of Object.entries(body as Body)) {
    if (key === 'knn' && value !== null && typeof value === 'object') return ((c) => (c ? { knn: c } : undefined))(change(value as Body));
    out[key] = mapKnn(value, change);
  }
  return out;
}

const VARIANTS: Record<string, (body: Body) => Body> = {
  'no-knn': (body) => mapKnn(body, () => undefined) as Body,
  'knn-no-filter': (body) => mapKnn(body, ({ filter: _filter, ...knn }) => knn) as Body,
  // Only the read's own filters: the kNN filter without its "not removed" clause.
  'knn-read-filters-only': (body) =>
    mapKnn(body, ({ filter, ...knn }) => {
      const kept = (filter as Body[]).filter((clause) => !('bool' in clause));
      return kept.length > 0 ? { ...knn, filter: kept } : knn;
    }) as Body,
};

/** `k=K,nc=N`: the kNN clause with another k and num_candidates. */
function variant(name: string): ((body: Body) => Body) | undefined {
  const known = VARIANTS[name];
  if (known) return known;
  const match = /^k=(\d+),nc=(\d+)$/.exec(name);
  if (!match) return undefined;
  const [k, numCandidates] = [Number(match[1]), Number(match[2])];
  return (body) => mapKnn(body, (knn) => ({ ...knn, k, num_candidates: numCandidates })) as Body;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        index: { type: 'string' },
        rounds: { type: 'string', default: '20' },
        variant: { type: 'string', multiple: true, default: [] },
      },
    },
    'usage: bench-ranking-took --alias ALIAS [--index NAME] [--rounds N] [--variant ' + [...Object.keys(VARIANTS), 'k=K,nc=N'].join('|') + ']...',
  );
  if (!values.alias) throw new Error('--alias is required (an index kept by bench-search --keep)');
  const rounds = numberOption('rounds', values.rounds);
  const stamp = Date.now().toString(36);
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: values.alias, LISTINGS_INDEX: `${values.alias}-unused`, REDIS_PREFIX: `bench-took:${stamp}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 60_000 });
  const redis = createRedisClient(config.redisUrl);
  try {
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    await ranking.refresh();
    const target = values.index ?? config.listingsAlias;
    const kinds: Array<[string, Array<{ body: Body; params: Record<string, unknown> }>]> = [];
    const full: Array<{ body: Body; params: Record<string, unknown> }> = [];
    const bm25: typeof full = [];
    for (const query of searchMix()) {
      const request = parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)));
      const built = await search.buildRequest(request);
      // The service's own parameters, with `took` kept in the filtered response.
      const params = { ...built.params, filter_path: `took,${built.params.filter_path}` };
      full.push({ body: built.body as Body, params });
      // Every match ranked exactly (no window), as before the rank window.
      const settings = { ...bm25Alone(await ranking.current()), window: 0 };
      bm25.push({ body: pageBody(planRead(request, { settings, tunables: 0, now: Date.now() })) as Body, params });
    }
    kinds.push(['BM25 alone', bm25], ['full ranking', full]);
    for (const name of values.variant) {
      const change = variant(name);
      if (!change) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}, k=K,nc=N`);
      kinds.push([`full, ${name}`, full.map(({ body, params }) => ({ body: change(body), params }))]);
    }
    const took = new Map<string, number[]>(kinds.map(([name]) => [name, []]));
    const loadBefore = loadavg()[0]!;
    // Warm-up round, then rounds alternating the kinds query by query.
    for (let round = 0; round <= rounds; round++) {
      for (let i = 0; i < full.length; i++) {
        for (const [name, requests] of kinds) {
          const { body, params } = requests[i]!;
          const answer = await elasticsearch.search({ index: target, ...params, ...body } as never);
          if (round > 0) took.get(name)!.push(answer.took);
        }
      }
    }
    const loadAfter = loadavg()[0]!;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const base = mean(took.get('BM25 alone')!);
    const lines = [
      `index ${target}, ${full.length} queries x ${rounds} rounds, one at a time; load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)}`,
      '',
      '| query | took mean | took p50 | mean / BM25 alone |',
      '|---|---|---|---|',
      ...kinds.map(([name]) => {
        const xs = took.get(name)!;
        return `| ${name} | ${mean(xs).toFixed(2)} ms | ${median(xs)} ms | ${(mean(xs) / base).toFixed(2)}x |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-ranking-took', main);
