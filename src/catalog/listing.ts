/**
 * The listing model: the wire shapes of SPEC.md section 2 (what clients see) and the stored
 * document (what the listing index holds). Internal fields never leave through `toListing`.
 */

export type ListingType = 'http' | 'mcp';
export type Scheme = 'exact' | 'upto';

/** SPEC 2.3. `amount` is a base-10 integer string in the asset's smallest unit (DECISIONS). */
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

/** SPEC 2.4: seller-declared metadata, matched by search. */
export interface Describe {
  title?: string;
  description?: string;
  tags?: string[];
  inputs?: Record<string, string>;
}

/** SPEC 2.5. */
export interface Signals {
  lastSettled?: string;
  settleCount7d: number;
  rejectionRate7d: number;
  /**
   * Documented addition, `upto` listings only: the median amount actually settled in the last 7
   * days (base units, integer string), beside the ceiling in `payment.amount` (README "upto").
   */
  medianSettledAmount7d?: string;
}

/** SPEC 2.6, only with `explain=1`. */
export interface Debug {
  score: number;
  relevance: number;
  priceBoost: number;
  recencyBoost: number;
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

/** Who wrote a listing; kept on the document for operators, never shown to clients. */
export type ListingSource = 'announce' | 'publish' | 'traffic' | 'import' | 'demo' | 'bench';

export type RemovalReason = 'unpublished' | 'probe_failed' | 'stale' | 'operator';

/** The document stored in the listing index (mappings/listings.json). */
export interface ListingDocument {
  id: string;
  type: ListingType;
  resource: string;
  /** HTTP: `METHOD canonicalUrl`; MCP: `serverUri toolName` (DECISIONS "Listing id"). */
  canonicalKey: string;
  method?: string;
  host: string;
  name?: string;
  description?: string;
  tags?: string[];
  /** Identifier words (snake/camel/kebab split) from names, inputs and the path, for BM25. */
  keywords?: string;
  /** Share of the text that is not stuffing (keywords.ts textQuality); multiplies text relevance. */
  textQuality?: number;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  payment: Payment;
  /** Every payment option the resource accepts (the primary one included). */
  accepts?: Array<Payment & { extra?: Record<string, unknown> }>;
  describe?: Describe;
  signals: Signals;
  source: ListingSource;
  owner?: string;
  firstSeen: string;
  lastSeen: string;
  updatedAt: string;
  removed: boolean;
  removedReason?: RemovalReason;
  removedAt?: string;
  /** Unit vector of the listing's text (src/semantic), set by the ingest consumer; never shown. */
  embedding?: number[];
}

const EMPTY_SIGNALS: Signals = { settleCount7d: 0, rejectionRate7d: 0 };

export function publicPayment(payment: Payment): Payment {
  const out: Payment = { scheme: payment.scheme, network: payment.network, asset: payment.asset, amount: String(payment.amount) };
  // `!= null`: the write path clears replaced fields with null in the stored document.
  if (payment.payTo != null) out.payTo = payment.payTo;
  if (payment.maxTimeoutSeconds != null) out.maxTimeoutSeconds = payment.maxTimeoutSeconds;
  if (payment.pricing != null) out.pricing = payment.pricing;
  return out;
}

export function publicSignals(signals: Partial<Signals> | undefined): Signals {
  const out: Signals = { ...EMPTY_SIGNALS };
  if (signals?.lastSettled) out.lastSettled = signals.lastSettled;
  if (typeof signals?.settleCount7d === 'number') out.settleCount7d = signals.settleCount7d;
  if (typeof signals?.rejectionRate7d === 'number') out.rejectionRate7d = signals.rejectionRate7d;
  if (signals?.medianSettledAmount7d != null) out.medianSettledAmount7d = String(signals.medianSettledAmount7d);
  return out;
}

/** The response shape of SPEC.md section 2, built field by field so internals cannot leak. */
export function toListing(doc: ListingDocument): Listing {
  if (doc.type === 'mcp') {
    // Keys in SPEC 2.2 order (optional ones where the table puts them), so responses read like the spec.
    return {
      id: doc.id,
      type: 'mcp',
      resource: doc.resource,
      name: doc.name ?? '',
      description: doc.description ?? '',
      inputSchema: doc.inputSchema ?? { type: 'object' },
      ...(doc.outputSchema ? { outputSchema: doc.outputSchema } : {}),
      payment: publicPayment(doc.payment),
      ...(doc.tags && doc.tags.length > 0 ? { tags: doc.tags } : {}),
      signals: publicSignals(doc.signals),
    };
  }
  const describe: Describe = {};
  if (doc.describe?.title != null) describe.title = doc.describe.title;
  if (doc.describe?.description != null) describe.description = doc.describe.description;
  if (doc.describe?.tags != null) describe.tags = doc.describe.tags;
  if (doc.describe?.inputs != null) describe.inputs = doc.describe.inputs;
  return {
    id: doc.id,
    type: 'http',
    resource: doc.resource,
    payment: publicPayment(doc.payment),
    describe,
    signals: publicSignals(doc.signals),
  };
}
