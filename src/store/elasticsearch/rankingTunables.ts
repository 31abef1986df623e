/**
 * Reading and writing the ranking tunables stored with the listing index: `_meta.ranking` in the
 * mapping and the BM25 similarity in the index settings. Validation lives in src/search.
 */
import type { Client } from '@elastic/elasticsearch';

/** The similarity every text field of the listing index uses (mappings/listings.json). */
export const SIMILARITY_NAME = 'catalog_bm25';

export interface StoredTunables {
  /** The concrete index behind the alias. */
  index: string;
  /** The whole mapping `_meta` (a put-mapping replaces it as a whole). */
  meta: Record<string, unknown>;
  /** The mapping's properties, to know which text fields exist. */
  properties: Record<string, unknown>;
  /** `index.similarity.<name>` as stored (values are strings). */
  similarity: Record<string, unknown> | undefined;
}

export async function readTunables(client: Client, alias: string, similarityName: string): Promise<StoredTunables> {
  const [mapping, settings] = await Promise.all([
    client.indices.getMapping({ index: alias }),
    client.indices.getSettings({ index: alias, filter_path: `*.settings.index.similarity.${similarityName}` }),
  ]);
  const index = Object.keys(mapping)[0];
  if (index === undefined) throw new Error(`no index behind ${alias}`);
  const mappings = mapping[index]?.mappings as { _meta?: Record<string, unknown>; properties?: Record<string, unknown> } | undefined;
  const similarity = (settings[index]?.settings?.index?.similarity as Record<string, Record<string, unknown>> | undefined)?.[similarityName];
  return { index, meta: mappings?._meta ?? {}, properties: mappings?.properties ?? {}, similarity };
}

export async function writeRankingMeta(client: Client, index: string, meta: Record<string, unknown>): Promise<void> {
  await client.indices.putMapping({ index, _meta: meta });
}

/**
 * Similarity settings can only change on a closed index: close, update, reopen, and reopen even when
 * the update failed, so the index is never left closed. Searches fail for the second or so it is
 * closed; queued writes retry.
 */
export async function writeSimilarity(client: Client, index: string, similarityName: string, values: Record<string, number>): Promise<void> {
  await client.indices.close({ index, wait_for_active_shards: 1 });
  try {
    await client.indices.putSettings({ index, settings: { index: { similarity: { [similarityName]: { type: 'BM25', ...values } } } } });
  } finally {
    await client.indices.open({ index, wait_for_active_shards: 1 });
    await client.cluster.health({ index, wait_for_status: 'yellow', timeout: '30s' });
  }
}

/** The tunables of the index behind one alias, as the ranking cache and the operator command use them. */
export class RankingTunablesIndex {
  constructor(
    private readonly client: Client,
    readonly alias: string,
  ) {}

  read(): Promise<StoredTunables> {
    return readTunables(this.client, this.alias, SIMILARITY_NAME);
  }

  writeRankingMeta(index: string, meta: Record<string, unknown>): Promise<void> {
    return writeRankingMeta(this.client, index, meta);
  }

  writeSimilarity(index: string, values: Record<string, number>): Promise<void> {
    return writeSimilarity(this.client, index, SIMILARITY_NAME, values);
  }
}
