/**
 * The x402 Bazaar discovery answers (list and search) from the catalog's one search service: the
 * same Elasticsearch query, filters, ranking and cursors as GET /discovery/resources and
 * /discovery/search, mapped to the Bazaar's wire shapes.
 */
import type { CatalogSearch } from '../search/catalogSearch.js';
import { BAZAAR_SOURCE_FIELDS, toBazaarResource, type BazaarListResponse, type BazaarSearchResponse } from './bazaar.js';
import type { BazaarRead } from './bazaarRequest.js';

export class BazaarDiscovery {
  constructor(private readonly catalog: CatalogSearch) {}

  async list(read: BazaarRead): Promise<BazaarListResponse> {
    const pagination = { limit: read.request.limit, offset: read.offset };
    if (!read.matchesAny) return { x402Version: 2, items: [], pagination: { ...pagination, total: 0 } };
    const page = await this.catalog.readDocuments(read.request, BAZAAR_SOURCE_FIELDS);
    return { x402Version: 2, items: page.documents.map(toBazaarResource), pagination: { ...pagination, total: page.total ?? page.documents.length } };
  }

  async search(read: BazaarRead): Promise<BazaarSearchResponse> {
    const limit = read.request.limit;
    if (!read.matchesAny) return { x402Version: 2, resources: [], partialResults: false, pagination: { limit, cursor: null } };
    const page = await this.catalog.readDocuments(read.request, BAZAAR_SOURCE_FIELDS);
    return {
      x402Version: 2,
      resources: page.documents.map(toBazaarResource),
      partialResults: page.nextCursor !== undefined,
      pagination: { limit, cursor: page.nextCursor ?? null },
    };
  }
}
