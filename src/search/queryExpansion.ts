/**
 * What a typed query is searched as, besides its own words (docs/catalog-reads.md, "Ranking"):
 * identifier words of tool names and paths, and the synonyms of the operator's list. Pure
 * functions: the query builder turns their output into clauses.
 */
import { identifierWords } from '../catalog/keywords.js';

/** At most this many synonym phrases are added to one query: each is a clause Elasticsearch runs. */
export const MAX_EXPANSIONS = 8;

/**
 * The typed text plus the words inside identifiers it contains, so that `get_weather_forecast`
 * or `getWeatherForecast` also matches "weather forecast" (the listings' side is split at write
 * time into `keywords`). Plain words are left alone.
 */
export function withIdentifierWords(q: string): string {
  const extra: string[] = [];
  for (const token of q.split(/\s+/)) {
    if (!/[_./:-]|[a-z][A-Z]/.test(token)) continue;
    for (const word of identifierWords(token)) if (!extra.includes(word)) extra.push(word);
  }
  return extra.length > 0 ? `${q} ${extra.join(' ')}` : q;
}

/** Lower-case words with a light plural fold, for matching phrases of the synonym list against a query. */
function normalizedWords(text: string): string[] {
  return identifierWords(text).map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

function contains(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * The phrases to search besides the query: for every group one of whose phrases the query
 * contains (as whole words, plural-insensitive), the group's other phrases. Phrases the query
 * already contains are not repeated; at most MAX_EXPANSIONS, in list order.
 */
export function synonymExpansions(q: string, groups: readonly (readonly string[])[]): string[] {
  const words = normalizedWords(q);
  const out: string[] = [];
  for (const group of groups) {
    const phrases = group.map((phrase) => ({ phrase, words: normalizedWords(phrase) }));
    if (!phrases.some((p) => contains(words, p.words))) continue;
    for (const p of phrases) {
      if (out.length >= MAX_EXPANSIONS) return out;
      if (!contains(words, p.words) && !out.includes(p.phrase)) out.push(p.phrase);
    }
  }
  return out;
}
