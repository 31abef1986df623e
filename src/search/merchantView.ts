/**
 * The merchant view (docs/catalog-reads.md "Merchant view"): every live listing of one `payTo`, newest first and
 * paged like GET /discovery/resources (the same validated read, filtered on payTo), with the
 * aggregates of all of them. An address no live listing pays is NotFound.
 */
import { InvalidInput, NotFound } from '../core/errors.js';
import type { Listing } from '../shapes/listing.js';
import type { MerchantSummary } from '../shapes/merchant.js';
import type { MerchantSummaryIndex } from '../store/elasticsearch/merchantSummary.js';
import type { CatalogSearch } from './catalogSearch.js';
import { parseReadRequest } from './readGrammar.js';

export interface MerchantPage {
  payTo: string;
  summary: MerchantSummary;
  results: Listing[];
  nextCursor?: string;
}

const PARAMETERS = new Set(['payTo', 'limit', 'cursor']);

export class MerchantView {
  constructor(
    private readonly search: CatalogSearch,
    private readonly summaries: Pick<MerchantSummaryIndex, 'summary'>,
  ) {}

  /** `query`: `payTo` (required), `limit`, `cursor`, as a query string or tool arguments carry them. */
  async read(query: Record<string, unknown>): Promise<MerchantPage> {
    const unknown = Object.keys(query).filter((name) => !PARAMETERS.has(name));
    if (unknown.length > 0) {
      throw new InvalidInput('unknown_filter', `Unknown parameter: ${unknown.join(', ')}. Allowed: payTo, limit, cursor.`, unknown.map((path) => ({ path, message: 'is not a known parameter' })));
    }
    if (query.payTo === undefined) throw new InvalidInput('invalid_filter_value', 'payTo (the merchant\'s address) is required.', [{ path: 'payTo', message: 'is required' }]);
    // The catalog read's own rules check payTo, limit and cursor (and bind the cursor to payTo).
    const request = parseReadRequest('resources', query);
    const payTo = request.filters.payTo!;
    const [summary, page] = await Promise.all([this.summaries.summary(payTo), this.search.read(request)]);
    if (summary.listings === 0 && page.results.length === 0) throw new NotFound(`No live listing pays to ${payTo}.`);
    const { byType, ...totals } = summary;
    return { payTo, summary: { ...totals, http: byType.http ?? 0, mcp: byType.mcp ?? 0 }, ...page };
  }
}
