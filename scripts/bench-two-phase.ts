/**
 * Two-phase ranking, measured (docs/elasticsearch-cluster.md, "Why ranked search grows"): whether
 * ranking only a window of the best text matches would make ranked search cost flat as the catalog
 * grows, and what it would cost in ranking quality. For every query of the search mix, one at a
 * time, Elasticsearch's own `took` for:
 *
 * - `exact`: the ranked query the service sends (relevance x price x recency x health over every match);
 * - `window W`: phase 1, the ranking's own text relevance alone (no factor, so Elasticsearch may
 *   skip blocks that cannot reach its top W), then phase 2, the exact ranked query restricted to
 *   those W listings (what a rescore window does, with the service's sort and cursor kept);
 * - `one-field W`: the same with a cheap phase 1: BM25 on the one field holding all of a listing's
 *   text (`phrase_text`), without the field boosts.
 *
 * Quality against the exact ranking: the share of the exact top 10 a two-phase top 10 keeps, and
 * the mean of its top-10 scores over the exact top 10's (1.0: equally good by the ranking's own
 * measure; the window can only lose, never gain).
 *
 *   npx tsx scripts/bench-two-phase.ts --alias ALIAS [--windows 100,300] [--rounds 3]
 *
 * ALIAS: a catalog of bench-growth --keep (e.g. bench-growth-g1-1000000) or bench-search --keep.
 * Run with EMBEDDING_MODEL_DIR=/nonexistent for a catalog loaded without the model.
 */
import { loadavg } from 'node:os';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { buildCatalogSearch } from '../src/search/index.js';
import { searchParamsFor } from '../src/search/queryBuilder.js';
import { textQuery } from '../src/search/textQuery.js';
import { parseReadRequest } from '../src/search/readRequest.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { dropRedisPrefix } from '../src/store/redis/client.js';
import { fail, numberOption, parseCommandLine, runMain } from './lib/cliOptions.js';
import { percentile } from './lib/latency.js';
import { searchMix } from './lib/searchQueryMix.js';
import { storesFor } from '../src/store/stores.js';

type Body = Record<string, unknown>;
interface Answer {
  took: number;
  hits?: { hits?: Array<{ _id: string; _score: number | null }> };
}
interface Tally {
  took: number[];
  kept: number;
  scoreRatio: number[];
}

const TOP = 10;

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { alias: { type: 'string' }, windows: { type: 'string', default: '100,300' }, rounds: { type: 'string', default: '3' } } },
    'usage: bench-two-phase --alias ALIAS [--windows 100,300] [--rounds N]',
  );
  if (!values.alias) fail('--alias is required (a catalog kept by bench-growth or bench-search)');
  const windows = values.windows.split(',').map((w) => numberOption('windows', w.trim(), { max: 10_000 }));
  const rounds = numberOption('rounds', values.rounds);
  const alias = values.alias;
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-unused`, REDIS_PREFIX: `bench-two-phase:${Date.now().toString(36)}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const redis = createRedisClient(config.redisUrl);
  const send = async (body: Body, filterPath: string): Promise<Answer> =>
    (await elasticsearch.search({ index: alias, filter_path: filterPath, ...body } as never)) as unknown as Answer;
  try {
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    await ranking.refresh();
    // The factors out of phase 1 entirely: the text-quality multiplier is a function_score too.
    const textOnly = { ...(await ranking.current()), stuffing: 'off' as const };
    const kinds = ['exact', ...windows.flatMap((w) => [`window ${w}`, `one-field ${w}`])];
    const tallies = new Map<string, Tally>(kinds.map((k) => [k, { took: [], kept: 0, scoreRatio: [] }]));
    let judged = 0;
    // A warm-up round, then the measured rounds.
    for (let round = 0; round <= rounds; round++) {
      for (const query of searchMix()) {
        const request = parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)));
        const { body } = await search.buildRequest(request);
        const hitsPath = `took,${searchParamsFor(request).filter_path},hits.hits._id,hits.hits._score`;
        const exact = await send(body, hitsPath);
        const exactTop = (exact.hits?.hits ?? []).slice(0, TOP);
        const exactScore = exactTop.reduce((sum, hit) => sum + (hit._score ?? 0), 0);
        if (round > 0) {
          tallies.get('exact')!.took.push(exact.took);
          judged += exactTop.length;
        }
        const bool = (body.query as { bool: { must: Body[]; filter: Body[]; must_not: Body[] } }).bool;
        for (const w of windows) {
          const phases: Array<[string, Body]> = [
            [`window ${w}`, textQuery(request.q!, textOnly)],
            [`one-field ${w}`, { match: { phrase_text: request.q } }],
          ];
          for (const [kind, phaseOneQuery] of phases) {
            const first = await send({ size: w, _source: false, track_total_hits: false, query: { bool: { must: [phaseOneQuery], filter: bool.filter, must_not: bool.must_not } } }, 'took,hits.hits._id');
            const ids = (first.hits?.hits ?? []).map((hit) => hit._id);
            const second = await send({ ...body, query: { bool: { ...bool, filter: [...bool.filter, { ids: { values: ids } }] } } }, hitsPath);
            if (round === 0) continue;
            const tally = tallies.get(kind)!;
            tally.took.push(first.took + second.took);
            const top = (second.hits?.hits ?? []).slice(0, TOP);
            tally.kept += exactTop.filter((hit) => top.some((mine) => mine._id === hit._id)).length;
            if (exactScore > 0) tally.scoreRatio.push(top.reduce((sum, hit) => sum + (hit._score ?? 0), 0) / exactScore);
          }
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
    const lines = [
      `${alias}: ${searchMix().length} queries x ${rounds} rounds, one at a time; load average ${loadavg()[0]!.toFixed(2)} after`,
      '',
      '| ranking | took p50 | took mean | exact top 10 kept | top-10 score / exact |',
      '|---|---|---|---|---|',
      ...kinds.map((kind) => {
        const t = tallies.get(kind)!;
        const quality = kind === 'exact' ? '1.000 | 1.000' : `${(t.kept / Math.max(1, judged)).toFixed(3)} | ${mean(t.scoreRatio).toFixed(3)}`;
        return `| ${kind} | ${percentile([...t.took].sort((a, b) => a - b), 50)} ms | ${mean(t.took).toFixed(1)} ms | ${quality} |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-two-phase', main);
