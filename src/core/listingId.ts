/** `lst_` + 24 hex digits (README "Writing the catalog: the choices", Identity). */
export const LISTING_ID_PATTERN = /^lst_[0-9a-f]{24}$/;

export function isListingId(value: string): boolean {
  return LISTING_ID_PATTERN.test(value);
}
