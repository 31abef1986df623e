/**
 * A catalog read as the service understands it (GET /discovery/resources, /discovery/search,
 * /mcp/tools, the MCP discovery tools and the x402 Bazaar surface): the validated request. The
 * grammar that reads it from a query string or tool arguments is search/readGrammar.ts; what it
 * means for Elasticsearch is planned once per read by search/readPlan.ts.
 */
import type { ListingType, Scheme } from '../shapes/listing.js';

export type SearchSort = 'rank' | 'price' | 'recent';

export interface CatalogFilters {
  network?: string;
  type?: ListingType;
  /** Base-10 integer string without leading zeros; absent when no ceiling applies. */
  maxPrice?: string;
  asset?: string;
  scheme?: Scheme;
  payTo?: string;
  capability?: string;
  /** 0..1: only listings whose health checks found a valid 402 at least this often (never-checked ones fail a value > 0). */
  minUptime?: number;
  /** Only listings with a payment option on one of these network/asset pairs (the buyer's holdings). */
  payWith?: Array<{ network: string; asset: string }>;
  /**
   * A cap in USDC base units (`maxUsd` times 10^6): only listings with a USDC option (any network
   * the service knows) whose price is at most this; `upto` options compare their expected price.
   */
  maxUsdUnits?: string;
}

export interface ReadRequest {
  /** resources: structured browse; search: ranked free text (/mcp/tools is search with type=mcp). */
  kind: 'resources' | 'search';
  q?: string;
  /** Only for search; resources always lists newest first. */
  sort?: SearchSort;
  explain: boolean;
  limit: number;
  cursor?: string;
  /**
   * Listings to skip before the page (the x402 Bazaar surface's `offset`, bounded there); never
   * together with `cursor`. The service's own reads page with cursors only.
   */
  offset?: number;
  /** Count every match (`hits.total`); off by default, the count costs a pass over all matches. */
  countTotal?: boolean;
  filters: CatalogFilters;
  /**
   * The payer that will pay (the `X-Payer` header, the MCP tools' `payer` argument): its searches
   * are remembered so that its settlements link them to the listings paid (src/outcomes). Never
   * changes the results; search/taskSearch.ts takes it off before the read.
   */
  payer?: string;
  /** Set by search/taskSearch.ts only: paid-outcome lifts of this query's listings (src/outcomes). */
  lifts?: ReadonlyArray<{ id: string; boost: number; payers: number }>;
}

/** The header a search names its payer with (HTTP reads and the Bazaar surface). */
export const PAYER_HEADER = 'X-Payer';

export type ReadEndpoint = 'resources' | 'search' | 'mcpTools';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_TEXT_LENGTH = 256;
export const MAX_QUERY_LENGTH = 512;
