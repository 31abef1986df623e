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

export interface Expansion {
  /**
   * The query without the multi-word synonym phrases it contains: those are searched as phrases
   * (a concept, "speech to text"), not as loose words that match unrelated text ("text").
   */
  looseWords: string;
  /** Multi-word phrases of the list the query contains, as typed (searched as phrases at full weight). */
  typedPhrases: string[];
  /** The other phrases of every matched group (searched at the synonym weight); at most MAX_EXPANSIONS. */
  synonyms: string[];
}

/** A phrase's words as a pattern over the raw query: any separators between them, an optional plural s. */
function phrasePattern(words: string[]): RegExp {
  return new RegExp(`(^|[^a-z0-9])${words.map((w) => `${w}s?`).join('[^a-z0-9]+')}(?=$|[^a-z0-9])`, 'gi');
}

/**
 * Matches the query against the synonym groups: for every group one of whose phrases the query
 * contains (as whole words, plural-insensitive), the group's other phrases. Phrases the query
 * already contains are not repeated.
 */
export function expandQuery(q: string, groups: readonly (readonly string[])[]): Expansion {
  const words = normalizedWords(q);
  const typedPhrases: string[] = [];
  const synonyms: string[] = [];
  let looseWords = q;
  for (const group of groups) {
    const phrases = group.map((phrase) => ({ phrase, words: normalizedWords(phrase) }));
    const typed = phrases.filter((p) => contains(words, p.words));
    if (typed.length === 0) continue;
    for (const p of typed) {
      if (p.words.length < 2 || typedPhrases.includes(p.phrase)) continue;
      typedPhrases.push(p.phrase);
      looseWords = looseWords.replace(phrasePattern(p.words), '$1 ');
    }
    for (const p of phrases) {
      if (synonyms.length < MAX_EXPANSIONS && !typed.includes(p) && !synonyms.includes(p.phrase)) synonyms.push(p.phrase);
    }
  }
  return { looseWords: looseWords.replace(/\s+/g, ' ').trim(), typedPhrases, synonyms };
}

/** The synonym phrases a query is expanded with (see expandQuery). */
export function synonymExpansions(q: string, groups: readonly (readonly string[])[]): string[] {
  return expandQuery(q, groups).synonyms;
}
