/**
 * The typo pass (fuzzy matching of the typed words) only when the query needs it: when some word
 * of it is in no listing ("wether", "reciept"). Fuzzy term expansion over every word field was the
 * largest part of a ranked search's cost that the judged set did not need on correctly spelled
 * queries (lab journal 2026-11-25-ranking-cost.md). One look-up per distinct query, kept for a minute in a small LRU,
 * so a word that sellers start using is known soon after.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { LruCache, normalizedQuery } from '../core/lruCache.js';
import type { EditBand, WordReplacement } from '../store/elasticsearch/listingVocabulary.js';
import type { WordList } from './englishWords.js';
import { hasConnector } from './queryDirections.js';
import { STOP_WORDS } from '../core/stopWords.js';

export interface Vocabulary {
  /** How many listings have each word of the text (the catalog's analysed form of the word). */
  listingCounts(text: string): Promise<Map<string, number>>;
  /** For each word of the text no listing has, the catalog's closest word within the edit budget. */
  closestKnownWords(text: string, budget: readonly EditBand[]): Promise<WordReplacement[]>;
}

export interface TypoVerdict {
  /** Some word of the query is in no listing: send the fuzzy pass. */
  needed: boolean;
  /** When asked for and some unknown word has a close known one: the query spelled that way. */
  spelled?: string;
  /**
   * When asked for (`rareWithin`) and every word of the query is in at least one and at most that
   * many listings: those words, as the catalog writes them. Such a query names something (a
   * brand, a tool, a code) more than it describes a need.
   */
  rareWords?: string[];
}

const TTL_MS = 60_000;
/**
 * Longer queries are embedded as typed: a typo among many words moves the embedding little, and
 * the suggester's cost grows with every word (each a fuzzy walk of the term dictionary), so a
 * long query of made-up words must not buy a long suggester request.
 */
const MAX_SPELLED_WORDS = 8;

interface Entry {
  needed: boolean;
  /** Each word's listing count; undefined when the look-up failed. */
  counts?: ReadonlyMap<string, number>;
  /** Whether the query reads as a name (`namesSomething`); undefined until a read asks. */
  names?: boolean;
  /** null: looked up, nothing to correct; undefined: not looked up yet (or with another budget). */
  spelled?: string | null;
  /** The edit budget `spelled` was looked up with. */
  budget?: string;
  at: number;
}

export class TypoPass {
  private readonly cache: LruCache<Entry>;

  constructor(
    private readonly vocabulary: Vocabulary,
    /** The words a buyer may mean though no listing has them: never respelled. */
    private readonly words: WordList,
    private readonly now: Clock = systemClock,
    capacity = 1000,
  ) {
    this.cache = new LruCache(capacity);
  }

  /**
   * Whether `query` needs the typo pass and, with a `spelling` budget, how the catalog spells it:
   * the meaning of "speach recognition" is read from "speech recognition" (an embedding model reads
   * a misspelled word as other word pieces), while the fuzzy pass still matches the typed words.
   * The budget is the fuzzy pass's own (`editBudget`): a word is respelled only to a word the
   * lexical side already takes for the same one.
   */
  async check(query: string, options: { spelling?: readonly EditBand[]; rareWithin?: number } = {}): Promise<TypoVerdict> {
    const key = normalizedQuery(query);
    let entry = this.cache.get(key);
    if (!entry || this.now() - entry.at >= TTL_MS) {
      // A failed look-up keeps the pass (the search itself reports an unavailable index).
      const counts = await this.vocabulary.listingCounts(key).catch(() => undefined);
      entry = { needed: counts === undefined || [...counts.values()].some((count) => count === 0), at: this.now(), ...(counts ? { counts } : {}) };
      this.cache.set(key, entry);
    }
    // The dictionary is asked once per look-up, and only for a query whose words are rare.
    let rare = rareWordsOf(entry.counts, options.rareWithin);
    if (rare && !(entry.names ??= namesSomething(key, this.words))) rare = undefined;
    const verdict: TypoVerdict = rare ? { needed: entry.needed, rareWords: rare } : { needed: entry.needed };
    const budget = options.spelling;
    if (!budget || budget.length === 0 || !entry.needed || key.split(' ').length > MAX_SPELLED_WORDS) return verdict;
    const budgetKey = JSON.stringify(budget);
    if (entry.spelled === undefined || entry.budget !== budgetKey) {
      // A failed look-up reads the query as typed, and is tried again with the next search.
      entry.spelled = await this.vocabulary.closestKnownWords(key, budget).then((found) => respelled(key, found, this.words) ?? null, () => undefined);
      entry.budget = budgetKey;
    }
    return typeof entry.spelled === 'string' ? { ...verdict, spelled: entry.spelled } : verdict;
  }
}

/**
 * Whether every word of the query reads as a name: no English word (the words a query describes a
 * need with, which the embedding model reads well) and no direction, whose words a listing may
 * hold in the opposite order.
 */
function namesSomething(query: string, words: WordList): boolean {
  const typed = query.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '' && !STOP_WORDS.has(word));
  return typed.length > 0 && !hasConnector(query) && typed.every((word) => !words.isWord(word));
}

/** The query's words when every one is in 1 to `within` listings (0 or undefined: never). */
export function rareWordsOf(counts: ReadonlyMap<string, number> | undefined, within: number | undefined): string[] | undefined {
  if (!counts || counts.size === 0 || !within || within < 1) return undefined;
  for (const count of counts.values()) if (count < 1 || count > within) return undefined;
  return [...counts.keys()].sort();
}

/**
 * Elasticsearch's fuzziness as bands of word length: `AUTO:5,9` lets words of 5 to 8 characters
 * differ by one edit and longer ones by two; `AUTO` is `AUTO:3,6`; `0` allows none.
 */
export function editBudget(fuzziness: string): EditBand[] {
  if (fuzziness === '0') return [];
  if (fuzziness === '1' || fuzziness === '2') return [{ minLength: 1, maxEdits: fuzziness === '1' ? 1 : 2 }];
  const [, low = '3', high = '6'] = /^AUTO(?::(\d+),(\d+))?$/.exec(fuzziness) ?? [];
  return [{ minLength: Math.max(1, Number(low)), maxEdits: 1 }, { minLength: Math.max(1, Number(high)), maxEdits: 2 }];
}

/**
 * `text` with each misspelled word replaced by the catalog's closest word: a misspelling is a word
 * of letters only (a code such as "mp3" or "h264" is no typo) that is not an English word.
 * Undefined when no word is replaced.
 */
export function respelled(text: string, replacements: readonly WordReplacement[], words: WordList): string | undefined {
  const misspelled = replacements
    .filter(({ offset, length }) => {
      const typed = text.slice(offset, offset + length);
      return /^\p{L}+$/u.test(typed) && !words.isWord(typed);
    })
    .sort((a, b) => b.offset - a.offset);
  if (misspelled.length === 0) return undefined;
  let spelled = text;
  for (const { offset, length, replacement } of misspelled) spelled = spelled.slice(0, offset) + replacement + spelled.slice(offset + length);
  return spelled;
}
