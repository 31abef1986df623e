/**
 * Zero-downtime reindex of the listing index (docs/reindex.md): a new versioned index with the
 * current mapping and settings of mappings/listings.json, filled from the live one while the service
 * keeps reading and writing through the alias, then an atomic alias switch.
 *
 * 1. Create `<alias>-v<N+1>` (the operator's ranking tunables carried over), and reopen it until
 *    its primary terms exceed the live index's: a write prepared against the old index (its
 *    `if_seq_no`/`if_primary_term` guard) can then never match a document of the new one.
 * 2. Copy a point-in-time snapshot (PIT + search_after + _bulk; removed listings too, they are flags),
 *    each document's derived text fields (identifier words, text quality) computed again by this code,
 *    and a vector of a text it no longer has under this code's recipe left for the embedding worker.
 * 3. Catch up: every document whose `_seq_no` passed the checkpoint taken before the previous
 *    read, as it is now, until a round finds little.
 * 4. Write-block the old index (the block API waits for writes in flight), copy the last changes,
 *    switch the alias in one request. Writes refused meanwhile wait in the durable stream and are
 *    retried through the alias, i.e. into the new index; the old index stays blocked, so a write
 *    that resolved the alias before the switch is refused and retried too, never left behind.
 */
import { textFieldsOf } from '../../src/search/rankingSettings.js';
import { storedVector, storedVectorFields } from '../../src/store/elasticsearch/storedVector.js';
import { embeddedTextHash } from '../../src/semantic/listingText.js';
import type { EmbeddedFields } from '../../src/store/elasticsearch/listingEmbeddings.js';
import { derivedTextFields, type ListingText } from '../../src/catalog/document.js';
import type { Client } from '@elastic/elasticsearch';
import { errors } from '@elastic/elasticsearch';
import type { IndexLayout } from '../../src/config/index.js';
import { settingsWithLayout } from '../../src/store/elasticsearch/indexLayout.js';
import { loadIndexDefinition } from '../../src/store/elasticsearch/listingIndex.js';
import { allWritesProcessed, primaryTerms, readCheckpoints, type Checkpoints } from '../../src/store/elasticsearch/shardCheckpoints.js';

export type ReindexPhase = 'prepare' | 'copy' | 'catch-up' | 'switch' | 'done';

export interface ReindexProgress {
  phase: ReindexPhase;
  from: string;
  to: string;
  /** Documents written to the new index so far (a document changed twice counts twice). */
  copied: number;
  /** Documents in the snapshot being copied (phase copy). */
  total?: number;
  /** Catch-up round, from 1. */
  round?: number;
}

export interface ReindexOptions {
  alias: string;
  layout: IndexLayout;
  /** Documents per search page and per _bulk. */
  pageSize?: number;
  /** Catch-up rounds before the switch, at most; the switch comes earlier once a round finds few changes. */
  maxRounds?: number;
  /** A round that copies at most this many documents is followed by the switch. */
  switchBelow?: number;
  /** Delete what an interrupted reindex left (its index, the write block on the live index). */
  restart?: boolean;
  /** Awaited: a caller may pause the reindex at a phase (the test writes at precise moments). */
  onProgress?: (progress: ReindexProgress) => void | Promise<void>;
}

export interface ReindexResult {
  from: string;
  to: string;
  copied: number;
  rounds: number;
  /** How long the old index refused writes (they waited in the stream). */
  blockedMs: number;
  ms: number;
}

export class ReindexError extends Error {
  override name = 'ReindexError';
}

const KEEP_ALIVE = '5m';

async function aliasTarget(client: Client, alias: string): Promise<string> {
  try {
    const indices = Object.keys(await client.indices.getAlias({ name: alias }));
    if (indices.length !== 1) throw new ReindexError(`alias "${alias}" points at ${indices.join(', ')}; a reindex needs exactly one index behind it`);
    return indices[0]!;
  } catch (err) {
    if (err instanceof errors.ResponseError && err.meta.statusCode === 404) throw new ReindexError(`alias "${alias}" does not exist: nothing to reindex`);
    throw err;
  }
}

/** `<alias>-v<N>` with N one above every version that exists (or existed behind the alias). */
async function nextIndexName(client: Client, alias: string, current: string): Promise<{ name: string; unfinished: string[] }> {
  const found = await client.indices.getMapping({ index: `${alias}-v*`, allow_no_indices: true, expand_wildcards: 'all' });
  let highest = Number(/-v(\d+)$/.exec(current)?.[1] ?? 1);
  const unfinished: string[] = [];
  for (const [name, value] of Object.entries(found)) {
    const version = /-v(\d+)$/.exec(name);
    if (version) highest = Math.max(highest, Number(version[1]));
    const meta = (value.mappings as { _meta?: { reindexedFrom?: string } })._meta;
    if (name !== current && meta?.reindexedFrom === current) unfinished.push(name);
  }
  return { name: `${alias}-v${highest + 1}`, unfinished };
}

async function hasWriteBlock(client: Client, index: string): Promise<boolean> {
  const response = await client.indices.getSettings({ index, filter_path: '*.settings.index.blocks.write' });
  return String(Object.values(response)[0]?.settings?.index?.blocks?.write) === 'true';
}

async function removeWriteBlock(client: Client, index: string): Promise<void> {
  await client.indices.putSettings({ index, settings: { 'index.blocks.write': false } });
}

/** The definition of mappings/listings.json, with the live index's ranking tunables (the operator's). */
async function targetDefinition(client: Client, current: string, layout: IndexLayout) {
  const definition = loadIndexDefinition();
  const mapping = await client.indices.getMapping({ index: current });
  const liveMeta = (Object.values(mapping)[0]?.mappings as { _meta?: Record<string, unknown> } | undefined)?._meta ?? {};
  const settings = settingsWithLayout(definition.settings, { shards: layout.shards, replicas: 0 });
  const index = settings.index as Record<string, unknown>;
  const liveSimilarity = await similarityOf(client, current);
  return {
    // No replicas and no refresh while copying (faster); both are set before the switch.
    settings: { ...settings, index: { ...index, refresh_interval: '-1', similarity: { ...(index.similarity as object), ...liveSimilarity } } },
    mappings: {
      ...definition.mappings,
      _meta: { ...definition.mappings._meta, ranking: carriedRanking(liveMeta.ranking, definition.mappings), reindexedFrom: current },
    },
    refreshInterval: String(index.refresh_interval ?? '1s'),
  };
}

/**
 * The operator's tunables, carried to the new index, but for boosts of text fields its mapping no
 * longer has (issue 22 left the stemmed copies of title, name, descriptions and tags out of new
 * indexes): those would make the whole set invalid there. When no boosted field is left, the
 * shipped fields apply. What was dropped is printed.
 */
export function carriedRanking(live: unknown, definition: { properties?: unknown; _meta?: { ranking?: unknown } }): unknown {
  const shipped = definition._meta?.ranking as { fields?: Record<string, number> } | undefined;
  if (typeof live !== 'object' || live === null) return shipped;
  const ranking = live as { fields?: Record<string, number> };
  const known = textFieldsOf(definition.properties);
  const fields = Object.fromEntries(Object.entries(ranking.fields ?? {}).filter(([field]) => known.has(field)));
  const dropped = Object.keys(ranking.fields ?? {}).filter((field) => !known.has(field));
  if (dropped.length === 0) return live;
  const kept = Object.values(fields).some((boost) => boost > 0) ? fields : shipped?.fields;
  process.stderr.write(`reindex: field boosts the new mapping has no field for were dropped: ${dropped.join(', ')}; fields now ${JSON.stringify(kept)}\n`);
  return { ...ranking, fields: kept };
}

async function similarityOf(client: Client, index: string): Promise<Record<string, unknown>> {
  const response = await client.indices.getSettings({ index, filter_path: '*.settings.index.similarity' });
  return (Object.values(response)[0]?.settings?.index?.similarity as Record<string, unknown> | undefined) ?? {};
}

/** Close and reopen `index` until each of its primary terms is above every primary term of `than`. */
async function raisePrimaryTerms(client: Client, index: string, than: string): Promise<void> {
  const ceiling = Math.max(0, ...(await primaryTerms(client, than)));
  for (let attempt = 0; Math.min(...(await primaryTerms(client, index))) <= ceiling; attempt++) {
    if (attempt >= 20) throw new ReindexError(`could not raise the primary terms of ${index} above ${ceiling}`);
    await client.indices.close({ index, wait_for_active_shards: 1 });
    await client.indices.open({ index, wait_for_active_shards: 1 });
  }
}

/**
 * The copy writes through an alias of its own (`<index>-copy`) with `require_alias`, never to the
 * index name: if the index is gone (another run's --restart deleted it), the copy fails instead of
 * Elasticsearch auto-creating the index with a guessed mapping.
 */
const copyAlias = (index: string) => `${index}-copy`;

/**
 * The vector both ways the copy needs it (src/store/elasticsearch/storedVector.ts): `embedding` to
 * index, from the packed copy when the source index left it out of `_source`, and the packed copy
 * itself, made from the JSON vector of an index that kept one there.
 */
function withStoredVector(source: Record<string, unknown>): Record<string, unknown> {
  const vector = storedVector(source);
  return vector ? { ...source, ...storedVectorFields(vector) } : source;
}

/**
 * A vector of a text the listing no longer has under this code's recipe (src/semantic/listingText.ts:
 * a change to what a listing is embedded as) is left out of the copy, with its hash and model, so
 * the embedding worker embeds the text as this code writes it; a current vector is copied as is.
 */
function withCurrentVector(source: Record<string, unknown>): Record<string, unknown> {
  if (typeof source.embeddedTextHash !== 'string' || typeof source.resource !== 'string') return source;
  if (source.embeddedTextHash === embeddedTextHash(source as unknown as EmbeddedFields)) return source;
  const { embedding: _vector, embeddingPacked: _packed, embeddedTextHash: _hash, embeddingModel: _model, ...rest } = source;
  return rest;
}

/**
 * The derived text fields as this code computes them (src/catalog/document.ts): a catalog written
 * before a change to the identifier words or the text quality gets it with the new index.
 */
function withDerivedText(source: Record<string, unknown>): Record<string, unknown> {
  return typeof source.type === 'string' && typeof source.resource === 'string' ? { ...source, ...derivedTextFields(source as unknown as ListingText) } : source;
}

async function bulkCopy(client: Client, target: string, hits: Array<{ _id?: string | null; _source?: unknown }>): Promise<number> {
  if (hits.length === 0) return 0;
  const operations = hits.flatMap((hit) => [{ index: { _id: hit._id! } }, withDerivedText(withStoredVector(withCurrentVector(hit._source as Record<string, unknown>)))]);
  const response = await client.bulk({ index: copyAlias(target), require_alias: true, operations, refresh: false });
  if (response.errors) {
    const failed = response.items.map((item) => Object.values(item)[0]).find((result) => result?.error);
    throw new ReindexError(`copying into ${target} failed: ${failed?.error?.type}: ${failed?.error?.reason}`);
  }
  return hits.length;
}

/** Copies a point-in-time snapshot of `source` into `target`, page by page. */
async function copySnapshot(client: Client, source: string, target: string, pageSize: number, progress: (copied: number) => Promise<void>): Promise<number> {
  const pit = await client.openPointInTime({ index: source, keep_alive: KEEP_ALIVE });
  let pitId = pit.id;
  let copied = 0;
  let after: unknown[] | undefined;
  try {
    for (;;) {
      const response = await client.search({
        pit: { id: pitId, keep_alive: KEEP_ALIVE },
        size: pageSize,
        sort: [{ _shard_doc: 'asc' }] as never,
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
      pitId = response.pit_id ?? pitId;
      const hits = response.hits.hits;
      copied += await bulkCopy(client, target, hits);
      await progress(copied);
      if (hits.length < pageSize) return copied;
      after = hits[hits.length - 1]!.sort;
    }
  } finally {
    await client.closePointInTime({ id: pitId }).catch(() => undefined);
  }
}

/** Copies every document of `source` whose `_seq_no` is above its shard's checkpoint, as it is now. */
async function copyChangedSince(client: Client, source: string, target: string, since: Checkpoints, pageSize: number): Promise<number> {
  let copied = 0;
  for (const [shard, checkpoint] of since) {
    let after: unknown[] | undefined;
    for (;;) {
      const response = await client.search({
        index: source,
        preference: `_shards:${shard}`,
        size: pageSize,
        query: { range: { _seq_no: { gt: checkpoint } } },
        sort: [{ _seq_no: 'asc' }] as never,
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
      const hits = response.hits.hits;
      copied += await bulkCopy(client, target, hits);
      if (hits.length < pageSize) break;
      after = hits[hits.length - 1]!.sort;
    }
  }
  return copied;
}

/** Replicas and refresh as configured, then waits for the copies (green), or yellow on one node. */
async function makeServing(client: Client, index: string, layout: IndexLayout, refreshInterval: string): Promise<void> {
  await client.indices.putSettings({ index, settings: { index: { number_of_replicas: layout.replicas, refresh_interval: refreshInterval } } });
  const health = await client.cluster.health({ index, wait_for_status: layout.replicas > 0 ? 'green' : 'yellow', timeout: '120s' });
  if (health.timed_out) throw new ReindexError(`${index} did not get its ${layout.replicas} replica(s) within 120 s (status ${health.status}); are there enough data nodes?`);
  await client.indices.refresh({ index });
}

export async function reindexListings(client: Client, options: ReindexOptions): Promise<ReindexResult> {
  const started = Date.now();
  const { alias, layout, pageSize = 1000, maxRounds = 10, switchBelow = 500 } = options;
  const from = await aliasTarget(client, alias);
  const { name: to, unfinished } = await nextIndexName(client, alias, from);
  const blocked = await hasWriteBlock(client, from);
  if ((unfinished.length > 0 || blocked) && !options.restart) {
    const left = [...unfinished.map((name) => `index ${name}`), ...(blocked ? [`a write block on ${from}`] : [])].join(' and ');
    throw new ReindexError(`an earlier reindex of ${from} left ${left}: another reindex is running, or one was interrupted. If none is running, run again with --restart.`);
  }
  for (const name of unfinished) await client.indices.delete({ index: name });
  if (blocked) await removeWriteBlock(client, from);

  let copied = 0;
  const report = async (phase: ReindexPhase, extra: Partial<ReindexProgress> = {}) => options.onProgress?.({ phase, from, to, copied, ...extra });
  await report('prepare');
  const definition = await targetDefinition(client, from, layout);
  await client.indices.create({
    index: to,
    settings: definition.settings as never,
    mappings: definition.mappings as never,
    aliases: { [copyAlias(to)]: { is_write_index: true } },
    wait_for_active_shards: 1,
  });
  let blockedAt: number | undefined;
  let switched = false;
  try {
    await raisePrimaryTerms(client, to, from);
    let since = await readCheckpoints(client, from);
    await client.indices.refresh({ index: from });
    const { count: total } = await client.count({ index: from });
    copied = await copySnapshot(client, from, to, pageSize, (n) => report('copy', { copied: n, total }));
    let rounds = 0;
    for (let found = Number.POSITIVE_INFINITY; found > switchBelow && rounds < maxRounds; ) {
      rounds += 1;
      const next = await readCheckpoints(client, from);
      await client.indices.refresh({ index: from });
      found = await copyChangedSince(client, from, to, since, pageSize);
      copied += found;
      since = next;
      await report('catch-up', { round: rounds });
    }
    await makeServing(client, to, layout, definition.refreshInterval);

    await client.indices.addBlock({ index: from, block: 'write' });
    blockedAt = Date.now();
    await report('switch');
    while (!(await allWritesProcessed(client, from))) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.indices.refresh({ index: from });
    copied += await copyChangedSince(client, from, to, since, pageSize);
    await carryRankingChanges(client, from, to);
    await client.indices.refresh({ index: to });
    await client.indices.updateAliases({
      actions: [{ remove: { index: from, alias } }, { add: { index: to, alias, is_write_index: true } }, { remove: { index: to, alias: copyAlias(to) } }],
    });
    switched = true;
    const blockedMs = Date.now() - blockedAt;
    await report('done');
    return { from, to, copied, rounds, blockedMs, ms: Date.now() - started };
  } finally {
    if (!switched) {
      // Back to where it was: the live index takes writes again, the partial copy goes.
      if (blockedAt !== undefined) await removeWriteBlock(client, from).catch(() => undefined);
      await client.indices.delete({ index: to }).catch(() => undefined);
    }
  }
}

/**
 * A ranking change made on the old index while the copy ran (`npm run ranking -- set fields...`)
 * is not lost. (A BM25 change closes the old index, which fails the copy: the reindex then undoes
 * itself and is run again.)
 */
async function carryRankingChanges(client: Client, from: string, to: string): Promise<void> {
  const metaOf = async (index: string) =>
    (Object.values(await client.indices.getMapping({ index }))[0]?.mappings as { _meta?: Record<string, unknown> } | undefined)?._meta ?? {};
  const [live, copy] = await Promise.all([metaOf(from), metaOf(to)]);
  if (JSON.stringify(live.ranking) !== JSON.stringify(copy.ranking)) await client.indices.putMapping({ index: to, _meta: { ...copy, ranking: live.ranking } });
}
