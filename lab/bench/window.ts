/**
 * The rank window, measured (docs/catalog-reads.md, "Rank window"; DECISIONS "Ranked search at
 * scale"): how much of the exact top 10 the first page keeps when the factors are applied to the
 * text query's best `window` matches only, and what each costs. For every query of the search mix
 * (and as many distinct queries as --distinct asks), one at a time, the first page as the service
 * builds it with the window at each size and at 0 (exact: every match scored with every factor):
 *
 * - kept: the share of the exact top 10 the windowed top 10 holds (target: at least 0.95); and
 *   the same counting a listing of the very same score as the one it replaces (`keptOrTied`);
 * - score ratio: the windowed top 10's mean score over the exact top 10's (1.0: as good by the
 *   ranking's own measure; a window can only lose);
 * - Elasticsearch `took` p50 and mean.
 *
 *   npx tsx lab/bench/window.ts --alias ALIAS [--windows 100,300,1000] [--rounds 2] [--distinct 200]
 *
 * ALIAS: a kept catalog (bench-search --alias, bench-growth --keep). Only targets 127.0.0.1.
 */
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { buildCatalogSearch } from '../../src/door.js';
import { parseReadRequest } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient, dropRedisPrefix } from '../../src/door.js';
import { storesFor } from '../../src/door.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { percentile } from '../lib/latency.js';
import { distinctSearchQueries, searchMix } from '../lib/searchQueryMix.js';

type Body = Record<string, unknown>;
interface Answer {
  took: number;
  hits?: { hits?: Array<{ _id: string; _score: number | null }> };
}
interface Tally {
  took: number[];
  kept: number;
  /** Kept, or in its place a listing of the very same score (a tie the exact order broke by id). */
  keptOrTied: number;
  scoreRatio: number[];
}

const TOP = 10;

/** Equal scores as Elasticsearch's float32 scores can be: a tie. */
const sameScore = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));

/**
 * How many of the exact top 10 the windowed top 10 holds, counting in place of an exact hit a
 * windowed one of the very same score that the exact top 10 lacks: among listings of equal score
 * (the same text, price and activity, as the growth catalog repeats) the exact order takes the
 * lowest ids and the window the first documents, and neither is the better page (SPEC.md: ties
 * may reorder).
 */
function keptOrTied(exactTop: Array<{ _id: string; _score: number | null }>, top: Array<{ _id: string; _score: number | null }>): number {
  const exactIds = new Set(exactTop.map((hit) => hit._id));
  const spare = top.filter((hit) => !exactIds.has(hit._id));
  let kept = 0;
  for (const hit of exactTop) {
    if (top.some((mine) => mine._id === hit._id)) {
      kept += 1;
      continue;
    }
    const tie = spare.findIndex((mine) => sameScore(mine._score ?? 0, hit._score ?? 0));
    if (tie >= 0) {
      spare.splice(tie, 1);
      kept += 1;
    }
  }
  return kept;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { alias: { type: 'string' }, windows: { type: 'string', default: '100,300,1000' }, rounds: { type: 'string', default: '2' }, distinct: { type: 'string', default: '0' } } },
    'usage: bench-window --alias ALIAS [--windows 100,300,1000] [--rounds N] [--distinct N]',
  );
  if (!values.alias) fail('--alias is required (a catalog kept by bench-growth or bench-search)');
  const windows = values.windows.split(',').map((w) => numberOption('windows', w.trim(), { max: 10_000 }));
  const rounds = numberOption('rounds', values.rounds);
  const distinct = numberOption('distinct', values.distinct, { min: 0 });
  const alias = values.alias;
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-unused`, REDIS_PREFIX: `bench-window:${Date.now().toString(36)}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const redis = createRedisClient(config.redisUrl);
  const send = async (body: Body): Promise<Answer> =>
    (await elasticsearch.search({ index: alias, filter_path: 'took,hits.hits._id,hits.hits._score', ...body } as never)) as unknown as Answer;
  try {
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    await ranking.refresh();
    const kinds = ['exact', ...windows.map((w) => `window ${w}`)];
    const tallies = new Map<string, Tally>(kinds.map((k) => [k, { took: [], kept: 0, keptOrTied: 0, scoreRatio: [] }]));
    const queries = [...searchMix(), ...distinctSearchQueries(distinct)];
    let judged = 0;
    // A warm-up round, then the measured rounds.
    for (let round = 0; round <= rounds; round++) {
      for (const query of queries) {
        const request = parseReadRequest('search', { ...Object.fromEntries(new URLSearchParams(query)), limit: String(TOP) });
        // The first page as the service builds it, at each window size (0: exact).
        const bodyFor = async (window: number) => ({ ...(await search.buildRequest(request, { tune: (s) => ({ ...s, window }) })).body, _source: false });
        const exact = await send(await bodyFor(0));
        const exactTop = (exact.hits?.hits ?? []).slice(0, TOP);
        const exactScore = exactTop.reduce((sum, hit) => sum + (hit._score ?? 0), 0);
        if (round > 0) {
          tallies.get('exact')!.took.push(exact.took);
          judged += exactTop.length;
        }
        for (const w of windows) {
          const answer = await send(await bodyFor(w));
          if (round === 0) continue;
          const tally = tallies.get(`window ${w}`)!;
          tally.took.push(answer.took);
          const top = (answer.hits?.hits ?? []).slice(0, TOP);
          tally.kept += exactTop.filter((hit) => top.some((mine) => mine._id === hit._id)).length;
          tally.keptOrTied += keptOrTied(exactTop, top);
          if (exactScore > 0) tally.scoreRatio.push(top.reduce((sum, hit) => sum + (hit._score ?? 0), 0) / exactScore);
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
    const lines = [
      `${alias}: ${queries.length} queries x ${rounds} rounds, one at a time; load average ${loadavg()[0]!.toFixed(2)} after`,
      '',
      '| ranking | took p50 | took mean | exact top 10 kept | kept, ties counted | top-10 score / exact |',
      '|---|---|---|---|---|---|',
      ...kinds.map((kind) => {
        const t = tallies.get(kind)!;
        const share = (n: number) => (n / Math.max(1, judged)).toFixed(3);
        const quality = kind === 'exact' ? '1.000 | 1.000 | 1.000' : `${share(t.kept)} | ${share(t.keptOrTied)} | ${mean(t.scoreRatio).toFixed(3)}`;
        return `| ${kind} | ${percentile([...t.took].sort((a, b) => a - b), 50)} ms | ${mean(t.took).toFixed(1)} ms | ${quality} |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-window', main);
