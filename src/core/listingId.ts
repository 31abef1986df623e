/** `lst_` + 24 hex digits (docs/catalog-write.md "Identity and stored fields"). */
export const LISTING_ID_SOURCE = '^lst_[0-9a-f]{24}$';

/** LISTING_ID_SOURCE as a RegExp; the string form goes into JSON Schemas (OpenAPI, MCP tools). */
export const LISTING_ID_PATTERN = new RegExp(LISTING_ID_SOURCE);

export function isListingId(value: string): boolean {
  return LISTING_ID_PATTERN.test(value);
}
