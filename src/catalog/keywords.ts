/**
 * Identifier words for BM25. This Elasticsearch has no word_delimiter filter, so `get_weather`,
 * `getWeather` and `/weather-forecast/{lat}` are split here, at write time, into plain words
 * stored in the `keywords` field.
 */
import { STOP_WORDS } from '../core/stopWords.js';

/** `getWeatherForecast_v2-daily` -> ['get', 'weather', 'forecast', 'v2', 'daily'] */
export function identifierWords(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 0);
}

/** Words too common to count as repetition: the analyzers' stop words and a few more. */
const COMMON: ReadonlySet<string> = new Set([...STOP_WORDS, 'from', 'any', 'our', 'your', 'you', 'per', 'all']);

/**
 * A keyword list: at least this many words, of which fewer than LIST_GRAMMAR_SHARE are grammar
 * (the stop words but "to", which capability names use as a connector: "pdf to word, speech to
 * text" is still a list). A listing describing one API in that many words writes sentences or
 * phrases; a list of every capability a seller wants to be found for does not, and repeats no
 * word, so the repetition measure alone let it through.
 */
const LIST_MIN_WORDS = 24;
const LIST_GRAMMAR_SHARE = 0.03;
/** The quality of a keyword list (search squares it with the default `stuffing`). */
const LIST_QUALITY = 0.5;

const textWords = (texts: Array<string | undefined>) => texts.flatMap((text) => (text ?? '').toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((w) => w !== '');

/**
 * 1 minus the share of the words that are a third (or later) use of the same word. Words of two
 * letters count ("ip ip ip", "ev ev ev"); numbers, single letters and common words do not.
 */
function repetitionQuality(words: string[]): number {
  const counts = new Map<string, number>();
  let total = 0;
  let excess = 0;
  for (const word of words) {
    if (word.length < 2 || !/\p{L}/u.test(word) || COMMON.has(word)) continue;
    const count = (counts.get(word) ?? 0) + 1;
    counts.set(word, count);
    total += 1;
    if (count > 2) excess += 1;
  }
  return total === 0 ? 1 : 1 - excess / total;
}

function listQuality(words: string[]): number {
  if (words.length < LIST_MIN_WORDS) return 1;
  const grammar = words.filter((w) => w !== 'to' && STOP_WORDS.has(w)).length;
  return grammar / words.length < LIST_GRAMMAR_SHARE ? LIST_QUALITY : 1;
}

/**
 * How little of a listing's text is stuffing, 0..1: lower the more its words are repeated past
 * twice (a title and description repeating "translate" ten times score far lower), and halved for
 * a keyword list (above). Ordinary text scores 1. Search multiplies text relevance by it
 * (docs/catalog-reads.md, "Ranking"), so neither repetition nor a list of everything buys rank.
 */
export function textQuality(...texts: Array<string | undefined>): number {
  const words = textWords(texts);
  return Math.round(repetitionQuality(words) * listQuality(words) * 1000) / 1000;
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
