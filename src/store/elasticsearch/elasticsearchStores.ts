/**
 * Every Elasticsearch adapter of the listing index behind one alias, built on demand: what the
 * features' `index.ts` ask for instead of holding the Elasticsearch client themselves.
 */
import type { ElasticsearchClient } from './client.js';
import { ListingEmbeddingStore } from './listingEmbeddings.js';
import { ListingIndexGuard } from './listingIndex.js';
import { scanLiveListingIds } from './listingScan.js';
import { ListingSearchIndex } from './listingSearch.js';
import { ListingStore } from './listingStore.js';
import { ListingVocabulary } from './listingVocabulary.js';
import { MerchantSummaryIndex } from './merchantSummary.js';
import { OutcomeLinkIndex } from './outcomeLinks.js';
import { RankingTunablesIndex } from './rankingTunables.js';
import { ElasticsearchStaleListingFinder } from './staleListings.js';

export class ElasticsearchStores {
  constructor(
    private readonly client: ElasticsearchClient,
    readonly alias: string,
    /** The concrete index IndexKeeper re-creates behind the alias (LISTINGS_INDEX). */
    private readonly index: string,
  ) {}

  listings(): ListingStore {
    return new ListingStore(this.client, this.alias);
  }

  listingIndexGuard(): ListingIndexGuard {
    return new ListingIndexGuard(this.client, this.alias, this.index);
  }

  /** Every live listing's id, in pages, in index order (store/elasticsearch/listingScan.ts). */
  liveListingIds(): AsyncGenerator<string[]> {
    return scanLiveListingIds(this.client, this.alias);
  }

  search(): ListingSearchIndex {
    return new ListingSearchIndex(this.client, this.alias);
  }

  merchantSummaries(): MerchantSummaryIndex {
    return new MerchantSummaryIndex(this.client, this.alias);
  }

  vocabulary(): ListingVocabulary {
    return new ListingVocabulary(this.client, this.alias);
  }

  rankingTunables(): RankingTunablesIndex {
    return new RankingTunablesIndex(this.client, this.alias);
  }

  embeddings(): ListingEmbeddingStore {
    return new ListingEmbeddingStore(this.client, this.alias);
  }

  /** The paid-outcome links beside the listings (`<alias>-outcomes`, store/elasticsearch/outcomeLinks.ts). */
  outcomeLinks(): OutcomeLinkIndex {
    return new OutcomeLinkIndex(this.client, outcomeIndexName(this.alias));
  }

  staleListings(): ElasticsearchStaleListingFinder {
    return new ElasticsearchStaleListingFinder(this.client, this.alias);
  }
}

/** The outcome links' index of a deployment: beside its listings alias, dropped with the deployment. */
export const outcomeIndexName = (alias: string) => `${alias}-outcomes`;
