/**
 * The stop words of the index's analyzers (Elasticsearch's `_english_` list, mappings/listings.json):
 * they are not indexed, but keep their position, so a phrase with one has a gap where it was.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or',
  'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);
