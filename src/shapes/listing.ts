/**
 * The listing as clients see it (README "Catalog reads: the choices", Listing shape): the payment,
 * describe and signals blocks and the two listing types. The stored document is
 * store/listingDocument.ts; catalog/listing.ts builds this shape from it.
 */

export type ListingType = 'http' | 'mcp';
export type Scheme = 'exact' | 'upto';

/** `amount` is a base-10 integer string in the asset's smallest unit (docs/catalog-write.md). */
export interface Payment {
  scheme: Scheme;
  /** CAIP-2, e.g. `eip155:84532`. */
  network: string;
  asset: string;
  amount: string;
  /** Seller's receiving address; a documented addition used by the `payTo` filter. */
  payTo?: string;
  maxTimeoutSeconds?: number;
  /** Metered MCP listings only. */
  pricing?: { unit: string; pricePerUnit: string };
}

/** Seller-declared metadata, matched by search and carried with every 402. */
export interface Describe {
  title?: string;
  description?: string;
  tags?: string[];
  /** Input name -> type name (`{ city: 'string', days: 'integer' }`). */
  inputs?: Record<string, string>;
}

/** Rolling 7-day traffic signals (README "Facilitator and signals: the choices"). */
export interface Signals {
  lastSettled?: string;
  settleCount7d: number;
  rejectionRate7d: number;
  /**
   * Documented addition, `upto` listings only: the median amount actually settled in the last 7
   * days (base units, integer string), beside the ceiling in `payment.amount` (README "upto").
   */
  medianSettledAmount7d?: string;
  /**
   * Documented addition (issue 13): the active health checks of the last 7 days. Absent (or null)
   * until the listing was checked once; MCP listings are not checked.
   */
  health?: Health | null;
}

/** What the unpaid re-checks of a listed HTTP resource found over the last 7 days. */
export interface Health {
  /** Share of the checks that found a valid 402 matching the listing, 0..1 (4 decimals). */
  uptime7d: number;
  /** Median time to that 402 over the successful checks; null when none succeeded. */
  latencyP50Ms: number | null;
  /** The latest check (ISO 8601). */
  lastChecked: string;
}

/** Only with `explain=1`: the factors of the score (docs/catalog-reads.md). */
export interface Debug {
  score: number;
  relevance: number;
  priceBoost: number;
  recencyBoost: number;
  /** The health factor (issue 13): 1 for a healthy or never-checked listing. */
  healthBoost: number;
}

export interface HttpListing {
  id: string;
  type: 'http';
  resource: string;
  payment: Payment;
  describe: Describe;
  signals: Signals;
  debug?: Debug;
}

export interface McpListing {
  id: string;
  type: 'mcp';
  /** `mcp://<host>/<tool_name>` */
  resource: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  payment: Payment;
  /** Documented addition: publish accepts `tags`; the `capability` filter matches them. */
  tags?: string[];
  signals: Signals;
  debug?: Debug;
}

export type Listing = HttpListing | McpListing;

/** Signals of a listing nobody has paid for yet. */
export const EMPTY_SIGNALS: Signals = { settleCount7d: 0, rejectionRate7d: 0 };
