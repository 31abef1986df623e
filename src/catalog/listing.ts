/**
 * The response shape of a listing, built from the stored document by `toListing` only, so internal
 * fields (canonical key, seen dates, removed flag, source, owner) never leave the service.
 */
import { EMPTY_SIGNALS, type Describe, type Listing, type Payment, type Provenance, type Signals } from '../shapes/listing.js';
import { storedProvenance, type ListingDocument } from '../store/listingDocument.js';

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
  if (signals?.uniquePayers7d != null) out.uniquePayers7d = signals.uniquePayers7d;
  if (signals?.largestPayerShare7d != null) out.largestPayerShare7d = signals.largestPayerShare7d;
  if (signals?.settleCount30d != null) out.settleCount30d = signals.settleCount30d;
  if (signals?.uniquePayers30d != null) out.uniquePayers30d = signals.uniquePayers30d;
  // Never checked: no health at all, rather than a made-up perfect one.
  if (signals?.health != null) {
    const { uptime7d, latencyP50Ms, lastChecked } = signals.health;
    out.health = { uptime7d, latencyP50Ms: latencyP50Ms ?? null, lastChecked };
  }
  return out;
}

/** The evidence kinds a listing has, each with exactly its documented members (stored nulls dropped). */
export function publicProvenance(stored: Provenance | undefined): Provenance {
  const out: Provenance = {};
  const { discovered, namedBy, probed402, settled, published, imported } = storedProvenance(stored);
  if (discovered?.source != null && discovered.url != null && discovered.firstSeen != null) out.discovered = discovered;
  if (Array.isArray(namedBy) && namedBy.length > 0) {
    out.namedBy = namedBy.map((e) => ({ source: e.source, ...(e.name != null ? { name: e.name } : {}), url: e.url, firstSeen: e.firstSeen, lastSeen: e.lastSeen }));
  }
  if (probed402?.lastStatus != null && probed402.lastAt != null) out.probed402 = { lastStatus: probed402.lastStatus, lastAt: probed402.lastAt };
  if (settled?.first != null && settled.last != null) {
    out.settled = { first: settled.first, last: settled.last };
    // On a chain (issue 44): the transactions a buyer can look up.
    if (typeof settled.firstTransaction === 'string') out.settled.firstTransaction = settled.firstTransaction;
    if (typeof settled.lastTransaction === 'string') out.settled.lastTransaction = settled.lastTransaction;
  }
  if (published?.via != null && published.at != null) out.published = { via: published.via, at: published.at };
  if (imported?.source != null && imported.at != null) out.imported = { source: imported.source, at: imported.at };
  return out;
}

/** The response shape (docs/catalog-reads.md "API"), built field by field so internals cannot leak. */
export function toListing(doc: ListingDocument): Listing {
  if (doc.type === 'mcp') {
    // Keys in the documented order (docs/catalog-reads.md "Examples"), so every MCP listing reads the same.
    return {
      id: doc.id,
      type: 'mcp',
      resource: doc.resource,
      name: doc.name ?? '',
      ...(doc.title != null ? { title: doc.title } : {}),
      description: doc.description ?? '',
      ...(doc.iconUrl != null ? { iconUrl: doc.iconUrl } : {}),
      inputSchema: doc.inputSchema ?? { type: 'object' },
      ...(doc.outputSchema ? { outputSchema: doc.outputSchema } : {}),
      payment: publicPayment(doc.payment),
      ...(doc.tags && doc.tags.length > 0 ? { tags: doc.tags } : {}),
      signals: publicSignals(doc.signals),
      provenance: publicProvenance(doc.provenance),
    };
  }
  const describe: Describe = {};
  if (doc.describe?.title != null) describe.title = doc.describe.title;
  if (doc.describe?.description != null) describe.description = doc.describe.description;
  if (doc.describe?.tags != null) describe.tags = doc.describe.tags;
  if (doc.describe?.iconUrl != null) describe.iconUrl = doc.describe.iconUrl;
  if (doc.describe?.inputs != null) describe.inputs = doc.describe.inputs;
  return {
    id: doc.id,
    type: 'http',
    resource: doc.resource,
    payment: publicPayment(doc.payment),
    describe,
    signals: publicSignals(doc.signals),
    provenance: publicProvenance(doc.provenance),
  };
}
