/**
 * How many of a ranked search's kNN neighbours pass its filters, query by query (issue 46; docs/
 * catalog-reads.md, "Broad filters after the kNN search"). A filter matching more than
 * `semantic.preFilterMaxShare` of the catalog is left out of the kNN search, whose k is scaled by
 * 1 / share "so that about k of its neighbours pass": true when the filter is independent of the
 * query's meaning, not when it is not (a subject MCP tools rarely cover, a kind of API that is
 * never cheap). For each query of the search mix whose filters the plan leaves to the query, this
 * prints the share, the widened k, and how many of those neighbours pass the filters (what the
 * ranked search gets from meaning), beside what the kNN search finds with every filter inside it
 * (`preFilterMaxShare` 1): the k nearest eligible listings above the similarity floor.
 *
 *   npx tsx lab/bench/knn-plan.ts --alias ALIAS
 *
 * ALIAS is a kept catalog (bench-search --keep). Only reads.
 */
import { loadConfig, createLogger, buildCatalogSearch, parseReadRequest } from '../../src/door.js';
import { createElasticsearchClient, createRedisClient, storesFor } from '../../src/door.js';
import { fail, parseCommandLine, runMain } from '../../src/door.js';
import { searchMix } from '../lib/searchQueryMix.js';
import { findKnn } from '../lib/searchVariants.js';

type Json = Record<string, unknown>;

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { alias: { type: 'string' } } }, 'usage: bench-knn-plan --alias ALIAS');
  if (!values.alias) fail('--alias is required (a catalog kept by bench-search --keep)');
  const alias = values.alias;
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-unused`, REDIS_PREFIX: `bench-knn-plan:${Date.now().toString(36)}:`, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  try {
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    const shipped = await ranking.refresh();
    const matches = async (query: Json) =>
      ((await elasticsearch.search({ index: alias, size: 10_000, _source: false, stored_fields: '_none_', track_total_hits: false, query } as never)) as unknown as { hits: { hits: unknown[] } }).hits.hits.length;
    const rows: string[] = [];
    for (const query of searchMix()) {
      const request = parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)));
      // The kNN search as its own request (the fused modes' form): the same filters, k and candidates as the clause.
      const planned = (preFilterMaxShare: number) =>
        search.plan(request, { tune: (s) => ({ ...s, semantic: { ...s.semantic, fusion: 'normalised', preFilterMaxShare } }) });
      const plan = await planned(shipped.semantic.preFilterMaxShare);
      const semantic = plan.text?.parts[0]?.semantic;
      if (!semantic || semantic.fusion === 'weighted' || semantic.nearest.postFilter.length === 0) continue;
      const knn = ((semantic.search.query as { bool: { must: Json[] } }).bool.must)[0]!;
      const k = (findKnn(knn)?.knn as { k: number } | undefined)?.k;
      const passing = await matches({ bool: { must: [knn], filter: plan.filters.filter } });
      // The same search with the filters inside the kNN search: its k nearest eligible listings above the similarity floor.
      const inside = (await planned(1)).text?.parts[0]?.semantic;
      const eligible = inside && inside.fusion !== 'weighted' ? await matches(inside.search.query as Json) : 0;
      const share = 1 / semantic.nearest.widen;
      rows.push(`| ${decodeURIComponent(query)} | ${share.toFixed(3)} | ${k} | ${passing} | ${eligible} |`);
    }
    process.stdout.write(
      `${alias}: semantic.k ${shipped.semantic.k}, preFilterMaxShare ${shipped.semantic.preFilterMaxShare}; ${rows.length} of the mix's ${searchMix().length} queries have their filters after the kNN search\n\n` +
        '| query | filter share | kNN k (k / share) | neighbours passing the filters | with every filter inside |\n|---|---:|---:|---:|---:|\n' +
        `${rows.join('\n')}\n`,
    );
  } finally {
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-knn-plan', main);
