/**
 * The pieces every Elasticsearch query over the listing index shares: the `search_after` sort
 * value and the clause "live listings only". The catalog read's body is built by
 * search/queryBuilder.ts (from search/readRequest.ts's ReadRequest).
 */

/** A `search_after` value: a sort key of the last hit of a page. */
export type SortValue = string | number;

/** Removed listings stay stored (for the announce status) but no read returns them. */
export const NOT_REMOVED = { term: { removed: true } } as const;
