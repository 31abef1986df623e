/**
 * A judged set (lab/lib/judgedSet.ts) loaded into a scratch deployment behind an in-process
 * service, the way bench:relevance and tune-semantic measure it: the listings go through the import
 * path (importListings, as `npm run import`), the run waits until they are searchable and until the
 * embedding worker has embedded all of them, then every query of the set is sent to
 * GET /discovery/search (limit 10, with the query's `type`). The scratch index and Redis prefix are
 * names of its own and are deleted by close().
 */
import type { ParsedEntry } from '../../src/door.js';
import { importListings } from '../../src/door.js';
import type { Listing } from '../../src/door.js';
import { setRanking } from '../../src/door.js';
import { sharedEmbedder } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { RankingTunablesIndex } from '../../src/door.js';
import { startServiceInProcess, type InProcessService } from './benchService.js';
import { describeSettled, settleIndex } from './indexSettle.js';
import { entriesAsOf, type HistoryOutcome, type JudgedQuery, type JudgedSet } from './judgedSet.js';
import { openOutcomeImport, type OutcomeImportResult } from '../../src/door.js';
import { createElasticsearchClient, dropDeploymentIndices, loadConfig } from '../../src/door.js';
import { loadGeneratedListings } from './benchCatalog.js';
import { addApproximateEmbeddings } from './benchVectors.js';
import type { QueryOutcome } from './relevanceMetrics.js';

export interface Ranked {
  query: JudgedQuery;
  results: Listing[];
  outcome: QueryOutcome;
}

export interface JudgedDeployment {
  service: InProcessService;
  /** Listings imported. */
  listings: number;
  /** Listings the embedding worker embedded (0: no model installed). */
  embedded: number;
  /** Every query of the set through GET /discovery/search, with its graded outcome. */
  rankAll(): Promise<Ranked[]>;
  search(query: JudgedQuery, explain?: boolean): Promise<Listing[]>;
  /** Links past paid outcomes (as `npm run import:outcomes`; lab/eval/tasks/history.jsonl). */
  importHistory(outcomes: readonly HistoryOutcome[]): Promise<OutcomeImportResult>;
  /** Changes one ranking tunable of the scratch index (as `npm run ranking -- set`) and applies it at once. */
  setTunable(key: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits until the service's embedding worker has embedded every listing of the scratch index
 * (embeddings are computed after the write, src/semantic/embeddingWorker.ts), so the semantic
 * columns measure the whole set; resolves with how many are embedded (0: model not installed).
 */
async function waitUntilEmbedded(service: InProcessService, progress: (what: string) => void): Promise<number> {
  const { elasticsearch, config } = service;
  // The same model instance as the service's (one per model and directory in a process).
  if (!(await sharedEmbedder(config, createLogger('warn')).embed(['warm up'], 'query'))) return 0;
  const count = async (query?: object) => (await elasticsearch.count({ index: config.listingsAlias, ...(query ? { query } : {}) })).count;
  const total = await count();
  const started = Date.now();
  for (;;) {
    await elasticsearch.indices.refresh({ index: config.listingsAlias });
    const embedded = await count({ term: { embeddingModel: config.embeddingModel } });
    if (embedded >= total) {
      progress(`${embedded} listings embedded with ${config.embeddingModel} by the embedding worker in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return embedded;
    }
    if (Date.now() - started > 600_000) throw new Error(`only ${embedded} of ${total} listings embedded within 600 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function waitUntilSearchable(service: InProcessService): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await service.container.catalog.queue.stats()).depth > 0) {
    if (Date.now() > deadline) throw new Error('the write queue was not applied within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await service.elasticsearch.indices.refresh({ index: service.config.listingsAlias });
}

/** The generated listings through the write path without the model, then their approximate vectors (as bench search --approximate-embeddings). */
async function loadDistractors(names: Record<string, string>, count: number, progress: (what: string) => void): Promise<void> {
  const config = loadConfig({ ...process.env, ...names });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  try {
    await loadGeneratedListings({ ...names, EMBEDDING_MODEL_DIR: '/nonexistent' }, count);
    const texts = await addApproximateEmbeddings(elasticsearch, config.listingsAlias, sharedEmbedder(config, createLogger('warn')), () => undefined);
    progress(`${count} generated listings loaded as distractors (${texts} distinct texts embedded, approximate vectors)`);
  } catch (err) {
    // No service owns the scratch index yet, so nothing else would delete it.
    await dropDeploymentIndices(elasticsearch, config.listingsIndex, config.listingsAlias);
    throw err;
  } finally {
    await elasticsearch.close();
  }
}

function resourceOf(entry: ParsedEntry | undefined): string {
  return (entry && 'value' in entry ? (entry.value as { resource: string }).resource : undefined) ?? '?';
}

/**
 * `distractors`: that many listings of the search benchmark's generated catalog
 * (lab/lib/listingGenerator.ts, with approximate embeddings: lab/lib/benchVectors.ts) are loaded
 * into the scratch index before the set, so its queries are ranked among a catalog of a size where
 * the kNN search's k neighbours are a small part of it. They are judged 0 for every query.
 */
export async function openJudgedDeployment(set: JudgedSet, progress: (what: string) => void, options: { distractors?: number } = {}): Promise<JudgedDeployment> {
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  // Always names of its own, whatever the environment says: the run rewrites the index's ranking
  // tunables and deletes the index and Redis keys at the end.
  const names = {
    LISTINGS_ALIAS: `bench-relevance-${stamp}`,
    LISTINGS_INDEX: `bench-relevance-${stamp}-v1`,
    REDIS_PREFIX: `bench-relevance:${stamp}:`,
  };
  if (options.distractors) await loadDistractors(names, options.distractors, progress);
  const service = await startServiceInProcess({ ...process.env, ...names, LOG_LEVEL: 'warn', CURSOR_SECRET: `bench-relevance-secret-${stamp}` });
  try {
    const imported = await importListings(service.container.catalog.writer, entriesAsOf(set, new Date()), { source: 'import' });
    if (imported.rejected.length > 0) {
      throw new Error(`the import refused ${imported.rejected.length} listings: ${JSON.stringify(imported.rejected.slice(0, 3))}`);
    }
    const resourceById = new Map(imported.accepted.map((a) => [a.id, resourceOf(set.entries[a.index])]));
    await waitUntilSearchable(service);
    progress(`${imported.accepted.length} listings imported and searchable in ${service.config.listingsAlias}`);
    const embedded = await waitUntilEmbedded(service, progress);
    if (embedded === 0) progress('WARNING: no listing has an embedding (model not installed: npm run services -- model); semantic columns equal the others');
    // One segment without deleted documents before anything is ranked: the embedding worker
    // rewrote every listing, and where its rounds fell against the refreshes decided the segments,
    // hence the term statistics (deleted copies still count). Merged, the lexical ranking is the
    // same run to run; the approximate kNN search still moves the full ranking by a few thousandths.
    progress(describeSettled(service.config.listingsAlias, await settleIndex(service.elasticsearch, service.config.listingsAlias, { maxSegments: 1 })));

    const search = async (query: JudgedQuery, explain = false): Promise<Listing[]> => {
      const params = new URLSearchParams({ q: query.q, limit: '10' });
      if (query.type) params.set('type', query.type);
      if (explain) params.set('explain', '1');
      const response = await fetch(`${service.url}/discovery/search?${params}`);
      if (response.status !== 200) throw new Error(`${query.id} ${JSON.stringify(query.q)}: HTTP ${response.status} ${await response.text()}`);
      return ((await response.json()) as { results: Listing[] }).results;
    };
    const rankAll = async (): Promise<Ranked[]> => {
      const ranked: Ranked[] = [];
      for (const query of set.queries) {
        const results = await search(query);
        const resources = results.map((listing) => resourceById.get(listing.id) ?? listing.resource);
        ranked.push({
          query,
          results,
          outcome: {
            rankedGrades: resources.map((resource) => query.judgments[resource] ?? 0),
            ...(query.needs ? { needsCovered5: query.needs.map((need) => need.some((resource) => resources.slice(0, 5).includes(resource))) } : {}),
            judgedGrades: Object.values(query.judgments),
            spamFirst: resources.length > 0 && set.spam.has(resources[0]!),
          },
        });
      }
      return ranked;
    };
    const setTunable = async (key: string, value: string) => {
      await setRanking(new RankingTunablesIndex(service.elasticsearch, service.config.listingsAlias), key, value);
      await service.container.search.ranking.refresh();
    };
    const importHistory = (outcomes: readonly HistoryOutcome[]) =>
      openOutcomeImport({ config: service.config, logger: createLogger('warn'), elasticsearch: service.elasticsearch, redis: service.redis }).run(
        outcomes.map((o) => JSON.stringify(o)).join('\n'),
        'history.jsonl',
      );
    return { service, listings: imported.accepted.length, embedded, rankAll, search, importHistory, setTunable, close: () => service.close() };
  } catch (err) {
    await service.close();
    throw err;
  }
}
