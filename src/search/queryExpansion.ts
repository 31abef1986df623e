/**
 * What a typed query is searched as, besides its own words (docs/catalog-reads.md, "Ranking"):
 * identifier words of tool names and paths, and the synonyms of the operator's list. Pure
 * functions: the query builder turns their output into clauses.
 */
import { identifierWords } from '../catalog/keywords.js';
import { otherSpellings } from './abbreviations.js';
import { foldInflection } from './inflection.js';

export { foldInflection };

/** At most this many synonym phrases are added to one query: each is a clause Elasticsearch runs. */
export const MAX_EXPANSIONS = 8;

/**
 * The typed text plus the words inside identifiers it contains, so that `get_weather_forecast`
 * or `getWeatherForecast` also matches "weather forecast" (the listings' side is split at write
 * time into `keywords`), and the other spelling of an abbreviation, typed or inside an
 * identifier (`coords` <-> coordinates: search/abbreviations.ts). Other plain words are left alone.
 */
export function withIdentifierWords(q: string): string {
  const typed = new Set(q.toLowerCase().split(/\s+/));
  const extra: string[] = [];
  const add = (word: string) => {
    if (!typed.has(word) && !extra.includes(word)) extra.push(word);
  };
  for (const token of q.split(/\s+/)) {
    const identifier = /[_./:-]|[a-z][A-Z]/.test(token);
    for (const word of identifierWords(token)) {
      if (identifier) add(word);
      for (const spelling of otherSpellings(word)) add(spelling);
    }
  }
  return extra.length > 0 ? `${q} ${extra.join(' ')}` : q;
}

/** Lower-case words, inflection-folded, for matching phrases of the synonym list against a query. */
function normalizedWords(text: string): string[] {
  return identifierWords(text).map(foldInflection);
}

/** Where `needle` occurs in `haystack` (start indexes). */
function occurrences(haystack: string[], needle: string[]): number[] {
  const starts: number[] = [];
  if (needle.length === 0 || needle.length > haystack.length) return starts;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    starts.push(i);
  }
  return starts;
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
 * The phrases of the list the query contains, longest first: a phrase inside a longer one the
 * query also contains does not count ("geocode" inside "reverse geocode" does not bring in the
 * forward geocoding group), as a synonym filter matches the longest entry.
 */
function typedPhrases(words: string[], groups: FoldedGroups): Set<string>[] {
  const spans = groups.flatMap((group, g) =>
    group.flatMap((p) => occurrences(words, p.words).map((start) => ({ g, phrase: p.phrase, start, end: start + p.words.length }))),
  );
  const typed = groups.map(() => new Set<string>());
  for (const span of spans) {
    const inside = spans.some((other) => other.end - other.start > span.end - span.start && other.start <= span.start && other.end >= span.end);
    if (!inside) typed[span.g]!.add(span.phrase);
  }
  return typed;
}

/**
 * Matches the query against the synonym groups: for every group one of whose phrases the query
 * contains (as whole words, inflection-insensitive, not inside a longer phrase of the list it
 * also contains), the group's other phrases. Phrases the query already contains are not
 * repeated; at most MAX_EXPANSIONS synonyms in all.
 */
type FoldedGroups = ReadonlyArray<ReadonlyArray<{ phrase: string; words: string[] }>>;

/**
 * The list's phrases folded once per list: the tunables cache hands every search the same groups
 * array until an operator changes them, and folding a few hundred phrases was most of the CPU a
 * search spent building its query (issue 22).
 */
const foldedLists = new WeakMap<readonly (readonly string[])[], FoldedGroups>();

function foldedGroups(groups: readonly (readonly string[])[]): FoldedGroups {
  let folded = foldedLists.get(groups);
  if (!folded) {
    folded = groups.map((group) => group.map((phrase) => ({ phrase, words: normalizedWords(phrase) })));
    foldedLists.set(groups, folded);
  }
  return folded;
}

export function expandQuery(q: string, groups: readonly (readonly string[])[]): Expansion {
  const words = normalizedWords(q);
  const folded = foldedGroups(groups);
  const typedPerGroup = typedPhrases(words, folded);
  const matched: MatchedGroup[] = [];
  let expansions = 0;
  let looseWords = q;
  folded.forEach((phrases, g) => {
    const typed = typedPerGroup[g]!;
    if (typed.size === 0) return;
    const entry: MatchedGroup = { typed: [], synonyms: [] };
    for (const p of phrases) {
      if (!typed.has(p.phrase) || p.words.length < 2) continue;
      entry.typed.push(p.phrase);
      // As typed too, when its inflection differs from the list's ("reverse geocoding" for "reverse geocode").
      for (const [spelled] of looseWords.matchAll(phrasePattern(p.words))) {
        const asTyped = spelled.replace(/^[^a-z0-9]+/i, '').toLowerCase();
        if (!entry.typed.includes(asTyped)) entry.typed.push(asTyped);
      }
      looseWords = looseWords.replace(phrasePattern(p.words), '$1 ');
    }
    for (const p of phrases) {
      if (expansions < MAX_EXPANSIONS && !typed.has(p.phrase)) {
        entry.synonyms.push(p.phrase);
        expansions += 1;
      }
    }
    matched.push(entry);
  });
  return { looseWords: looseWords.replace(/\s+/g, ' ').trim(), groups: matched };
}

/** The synonym phrases a query is expanded with (see expandQuery). */
export function synonymExpansions(q: string, groups: readonly (readonly string[])[]): string[] {
  return expandQuery(q, groups).groups.flatMap((g) => g.synonyms);
}
