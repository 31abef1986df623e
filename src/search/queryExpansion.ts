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

/**
 * A light inflection fold for matching the synonym list against a query (the index's hunspell
 * stemmer is not reachable from here without a round trip): plural s, -ing, -ed and a final e,
 * so "transcribing", "transcribed" and "transcribe" meet, as do "messages" and "message".
 */
export function foldInflection(word: string): string {
  let w = word;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 5 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Lower-case words, inflection-folded, for matching phrases of the synonym list against a query. */
function normalizedWords(text: string): string[] {
  return identifierWords(text).map(foldInflection);
}

function contains(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** One synonym group the query touched. */
export interface MatchedGroup {
  /** Multi-word phrases of the group the query contains, as listed (searched as phrases at full weight). */
  typed: string[];
  /** The group's other phrases (searched at the synonym weight). */
  synonyms: string[];
}

export interface Expansion {
  /**
   * The query without the multi-word synonym phrases it contains: those are searched as phrases
   * (a concept, "speech to text"), not as loose words that match unrelated text ("text").
   */
  looseWords: string;
  /** Per group, so that the query builder scores a group once (its best phrase), however many a listing repeats. */
  groups: MatchedGroup[];
}

/** A phrase's folded words as a pattern over the raw query: any separators between them, any inflection. */
function phrasePattern(words: string[]): RegExp {
  return new RegExp(`(^|[^a-z0-9])${words.map((w) => `${w}[a-z]*`).join('[^a-z0-9]+')}(?=$|[^a-z0-9])`, 'gi');
}

/**
 * Matches the query against the synonym groups: for every group one of whose phrases the query
 * contains (as whole words, inflection-insensitive), the group's other phrases. Phrases the query
 * already contains are not repeated; at most MAX_EXPANSIONS synonyms in all.
 */
export function expandQuery(q: string, groups: readonly (readonly string[])[]): Expansion {
  const words = normalizedWords(q);
  const matched: MatchedGroup[] = [];
  let expansions = 0;
  let looseWords = q;
  for (const group of groups) {
    const phrases = group.map((phrase) => ({ phrase, words: normalizedWords(phrase) }));
    const typed = phrases.filter((p) => contains(words, p.words));
    if (typed.length === 0) continue;
    const entry: MatchedGroup = { typed: [], synonyms: [] };
    for (const p of typed) {
      if (p.words.length < 2) continue;
      entry.typed.push(p.phrase);
      looseWords = looseWords.replace(phrasePattern(p.words), '$1 ');
    }
    for (const p of phrases) {
      if (expansions < MAX_EXPANSIONS && !typed.includes(p)) {
        entry.synonyms.push(p.phrase);
        expansions += 1;
      }
    }
    matched.push(entry);
  }
  return { looseWords: looseWords.replace(/\s+/g, ' ').trim(), groups: matched };
}

/** The synonym phrases a query is expanded with (see expandQuery). */
export function synonymExpansions(q: string, groups: readonly (readonly string[])[]): string[] {
  return expandQuery(q, groups).groups.flatMap((g) => g.synonyms);
}
