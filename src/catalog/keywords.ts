/**
 * Identifier words for BM25. This Elasticsearch has no word_delimiter filter, so `get_weather`,
 * `getWeather` and `/weather-forecast/{lat}` are split here, at write time, into plain words
 * stored in the `keywords` field.
 */

/** `getWeatherForecast_v2-daily` -> ['get', 'weather', 'forecast', 'v2', 'daily'] */
export function identifierWords(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 0);
}

/** Words too common to count as repetition. */
const COMMON = new Set(['the', 'and', 'for', 'with', 'from', 'any', 'our', 'your', 'you', 'are', 'per', 'all', 'into', 'this', 'that']);

/**
 * How little of a listing's text is stuffing: 1 minus the share of its words that are a third (or
 * later) use of the same word. Ordinary text repeats a word once or twice and scores 1; a title
 * and description repeating "translate" ten times score far lower. Search multiplies text
 * relevance by it (docs/catalog-reads.md, "Ranking"), so repetition cannot buy rank.
 */
export function textQuality(...texts: Array<string | undefined>): number {
  const counts = new Map<string, number>();
  let total = 0;
  let excess = 0;
  for (const text of texts) {
    for (const word of (text ?? '').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (word.length < 3 || COMMON.has(word)) continue;
      const count = (counts.get(word) ?? 0) + 1;
      counts.set(word, count);
      total += 1;
      if (count > 2) excess += 1;
    }
  }
  return total === 0 ? 1 : Math.round((1 - excess / total) * 1000) / 1000;
}

/** Path segments of a URL or template, variables included (`{lat}` names the input `lat`). */
function pathSegments(resource: string): string[] {
  const path = resource.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  return path.split('/').filter(Boolean);
}

/** Space-separated distinct words from the listing's identifiers, in first-seen order. */
function addWords(words: string[], identifier: string): void {
  for (const w of identifierWords(identifier)) if (!words.includes(w)) words.push(w);
}

export function listingKeywords(parts: { resource: string; name?: string; inputNames?: string[] }): string {
  const words: string[] = [];
  if (parts.name) addWords(words, parts.name);
  for (const input of parts.inputNames ?? []) addWords(words, input);
  for (const segment of pathSegments(parts.resource)) addWords(words, segment);
  return words.join(' ');
}
