/**
 * The paid-outcome links of one deployment (issue 45, src/outcomes): one document per search ->
 * paid listing, holding the search's text and its embedding, the payer, the listing's payTo, when
 * it was paid and where the link came from (traffic, or the operator's import with its
 * provenance). An index of its own beside the listings alias (`<alias>-outcomes`), so ranked search
 * finds the past searches nearest a query in meaning with one kNN search, and a reindex of the
 * listings leaves it alone.
 */
import type { ElasticsearchClient } from './client.js';

export interface OutcomeLink {
  q: string;
  vector: number[];
  /** The embedding model of `vector`: a query is only compared with links of its own model. */
  model: string;
  listingId: string;
  payer: string;
  payTo: string;
  /** ISO 8601: when the listing was paid. */
  at: string;
  source: 'traffic' | 'import';
  /** `npm run import:outcomes`: the file and the line it came from, and when it was imported. */
  provenance?: { file: string; line: number; importedAt: string };
}

/** A past search near the query: its link and Elasticsearch's `(1 + cosine) / 2`. */
export interface NearOutcome {
  listingId: string;
  payer: string;
  at: string;
  cosine: number;
}

const MAPPINGS = {
  dynamic: 'strict',
  properties: {
    q: { type: 'text', index: false },
    vector: { type: 'dense_vector', dims: 384, index: true, similarity: 'cosine' },
    model: { type: 'keyword' },
    listingId: { type: 'keyword' },
    payer: { type: 'keyword' },
    payTo: { type: 'keyword' },
    at: { type: 'date' },
    source: { type: 'keyword' },
    provenance: { type: 'object', enabled: false },
  },
} as const;

/**
 * Whether an outcome index holds any link, as this process last counted it (or wrote one), by
 * index name: shared by every OutcomeLinkIndex of the process, so a write through one (the
 * facilitator's recorder, an import) is seen by the ranking's at once. A deployment with no link
 * (most of them) then pays no kNN search per ranked search, only a `_count` a second.
 */
interface Presence {
  some: boolean;
  /** When it was counted (the process clock); a write sets it too. */
  at: number;
  counting?: Promise<boolean>;
}
const PRESENCE = new Map<string, Presence>();

/** While none was counted, counted again after this: a link written elsewhere (another gateway, `npm run import:outcomes`) counts within about one refresh interval. */
export const NO_LINKS_RECOUNT_MS = 1_000;
/** While some were, counted again (in the background) after this: the look-up stops once every link was dropped. */
export const SOME_LINKS_RECOUNT_MS = 30_000;

export class OutcomeLinkIndex {
  private ensured?: Promise<void>;

  constructor(
    private readonly client: ElasticsearchClient,
    readonly index: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Whether there is any link to look up (issue 46: the look-up ran on every ranked search, a kNN
   * search of its own, when there was nothing to find). No index, or an empty one: false. A count
   * that fails answers true, so the look-up runs and fails as it would have.
   */
  async hasLinks(): Promise<boolean> {
    const now = this.clock();
    const known = PRESENCE.get(this.index);
    if (known?.some) {
      if (now - known.at >= SOME_LINKS_RECOUNT_MS) void this.recount(known).catch(() => undefined);
      return true;
    }
    if (known && now - known.at < NO_LINKS_RECOUNT_MS) return false;
    return this.recount(known ?? this.presence());
  }

  private presence(): Presence {
    const presence: Presence = { some: false, at: Number.NEGATIVE_INFINITY };
    PRESENCE.set(this.index, presence);
    return presence;
  }

  private recount(presence: Presence): Promise<boolean> {
    const started = this.clock();
    presence.counting ??= this.client
      .count({ index: this.index, ignore_unavailable: true } as never)
      .then((response) => (response as { count?: number }).count ?? 0)
      .catch((err: { meta?: { statusCode?: number } }) => {
        if (err.meta?.statusCode === 404) return 0;
        throw err;
      })
      .then(
        (count) => {
          // A write of this process since the count began wins over it (not yet refreshed, it may not have counted).
          if (presence.some && presence.at >= started) return true;
          presence.some = count > 0;
          presence.at = this.clock();
          return presence.some;
        },
        () => true,
      )
      .finally(() => {
        presence.counting = undefined;
      });
    return presence.counting;
  }

  private sawWrite(): void {
    const presence = PRESENCE.get(this.index) ?? this.presence();
    presence.some = true;
    presence.at = this.clock();
  }

  /** Creates the index on first need (a deployment that never links an outcome has none). */
  ensure(): Promise<void> {
    this.ensured ??= (async () => {
      if (await this.client.indices.exists({ index: this.index })) return;
      await this.client.indices
        .create({ index: this.index, settings: { number_of_shards: 1, auto_expand_replicas: '0-1' }, mappings: MAPPINGS } as never)
        .catch((err: { meta?: { body?: { error?: { type?: string } } } }) => {
          if (err.meta?.body?.error?.type !== 'resource_already_exists_exception') throw err;
        });
      // Searchable only once its shard is allocated: a search before answers no_shard_available.
      await this.client.cluster.health({ index: this.index, wait_for_status: 'yellow', timeout: '30s' });
    })().catch((err: unknown) => {
      this.ensured = undefined;
      throw err;
    });
    return this.ensured;
  }

  async write(links: OutcomeLink[]): Promise<void> {
    if (links.length === 0) return;
    await this.ensure();
    const operations = links.flatMap((link) => [{ index: { _index: this.index } }, link]);
    const response = await this.client.bulk({ operations } as never);
    // Even a partly failed bulk may have written some.
    this.sawWrite();
    if ((response as { errors?: boolean }).errors) throw new Error(`outcome links: some of ${links.length} writes failed`);
  }

  /** Makes every write so far searchable (imports and tests; traffic waits for the next refresh). */
  async refresh(): Promise<void> {
    await this.ensure();
    await this.client.indices.refresh({ index: this.index });
  }

  /** The `k` past searches nearest the vector in meaning (cosine `minSimilarity` or more), of its model; none without an index. */
  async nearest(vector: number[], model: string, k: number, minSimilarity: number): Promise<NearOutcome[]> {
    const response = await this.client
      .search(
        {
          index: this.index,
          knn: { field: 'vector', query_vector: vector, k, num_candidates: Math.max(k, 100), filter: [{ term: { model } }], similarity: minSimilarity },
          size: k,
          // Doc values, not the stored source: a ranked search asks this on every read.
          _source: false,
          docvalue_fields: ['listingId', 'payer', { field: 'at', format: 'strict_date_optional_time' }],
          filter_path: 'hits.hits.fields,hits.hits._score',
        } as never,
        { openTelemetry: { enabled: false } },
      )
      .catch((err: { meta?: { statusCode?: number } }) => {
        if (err.meta?.statusCode === 404) return {};
        throw err;
      });
    type Hit = { fields?: { listingId?: string[]; payer?: string[]; at?: string[] }; _score?: number };
    const hits = (response as { hits?: { hits?: Hit[] } }).hits?.hits ?? [];
    return hits.flatMap((hit) => {
      const [listingId, payer, at] = [hit.fields?.listingId?.[0], hit.fields?.payer?.[0], hit.fields?.at?.[0]];
      if (!listingId || !payer || !at || typeof hit._score !== 'number') return [];
      return [{ listingId, payer, at, cosine: 2 * hit._score - 1 }];
    });
  }

  /** Drops the links of `payer` to listings paid to `payTo` (value that went round in a circle). */
  async dropPair(payer: string, payTo: string): Promise<void> {
    await this.client
      .deleteByQuery({ index: this.index, query: { bool: { filter: [{ term: { payer } }, { term: { payTo } }] } }, conflicts: 'proceed', refresh: true } as never)
      .catch((err: { meta?: { statusCode?: number } }) => {
        if (err.meta?.statusCode !== 404) throw err;
      });
    // Perhaps the last ones: counted again on the next search.
    PRESENCE.delete(this.index);
  }

  /** Every link's provenance and source (tests and the import's report); at most `max`. */
  async list(max = 1000): Promise<Array<Omit<OutcomeLink, 'vector'>>> {
    await this.ensure();
    const response = await this.client.search({ index: this.index, size: max, _source: { excludes: ['vector'] }, sort: [{ at: 'asc' }] } as never);
    return ((response as { hits: { hits: Array<{ _source: Omit<OutcomeLink, 'vector'> }> } }).hits.hits).map((h) => h._source);
  }
}
