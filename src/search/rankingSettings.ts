/**
 * Ranking tunables (DECISIONS "Ranking"): field boosts and decays live in the listing index's
 * mapping `_meta.ranking`, BM25 k1/b in its similarity settings, so operators tune ranking without
 * a deploy. This module validates what it reads; the cache and the ranking command both use it.
 */
import { loadIndexDefinition } from '../store/elasticsearch/listingIndex.js';
import { SIMILARITY_NAME } from '../store/elasticsearch/rankingTunables.js';

export type DecayFunction = 'exp' | 'gauss' | 'linear';

/** How the semantic neighbours' scores join the words' (search/semanticFusion.ts). */
export type SemanticFusion = 'weighted' | 'normalised' | 'rrf';
export type TypoSpelling = 'typed' | 'catalog';
export const TYPO_SPELLINGS: readonly TypoSpelling[] = ['typed', 'catalog'];
export const SEMANTIC_FUSIONS: readonly SemanticFusion[] = ['weighted', 'normalised', 'rrf'];

export interface RankingSettings {
  /** Text field -> boost, for the multi_match. */
  fields: Record<string, number>;
  /**
   * Typo tolerance: a second, fuzzy match of the typed words on the exact (unstemmed) fields among
   * `fields`, weighing `weight` of a normal match (0 turns it off). `fuzziness` is Elasticsearch's
   * (`AUTO:5,9`: no edit below 5 characters, one below 9, then two), so short words never go fuzzy.
   * `spelling` says how such a query is read: `catalog`, with each unknown word spelled as the
   * catalog's closest word (search/typoPass.ts), by the text query (as typed words, the fuzzy pass
   * still on the words as typed) and by semantic retrieval; `typed`, as typed (the fuzzy pass alone).
   */
  typos: { weight: number; fuzziness: string; spelling: TypoSpelling };
  /**
   * Query expansion (this Elasticsearch has no synonym filter): when the query contains one phrase
   * of a group, the other phrases of the group are searched too, as phrases on the stemmed fields,
   * weighing `weight` of the typed words.
   */
  synonyms: { weight: number; phraseBoost: number; groups: string[][] };
  /**
   * Semantic retrieval: a `knn` clause on the listing embeddings inside the text relevance, scoring
   * `weight x (1 + cosine) / 2` for the `k` nearest listings whose cosine is at least
   * `minSimilarity` (0 weight: off; also off while the embedding model is not installed).
   * `fusion` (search/semanticFusion.ts) says how the kNN score joins the words' score:
   * `weighted` (that clause), or the k nearest found by a kNN search of their own first and sent
   * back as one constant per listing on a per-query scale: `normalised` (`weight x (score - floor)
   * / (best - floor)`, floor the score at `minSimilarity`) or `rrf` (`weight x (rankConstant + 1)
   * / (rankConstant + rank)`). `preFilterMaxShare`: the kNN search takes the read's filters as
   * its own only when they match at most this share of the catalog; a broader filter is left to the
   * query, k and candidates scaled by 1 / share (search/filterShare.ts). 1: always inside.
   */
  semantic: {
    weight: number;
    k: number;
    numCandidates: number;
    minSimilarity: number;
    fusion: SemanticFusion;
    rankConstant: number;
    preFilterMaxShare: number;
  };
  /**
   * Word order that carries meaning ("speech to text" is not "text to speech"): a query's
   * `A to B` is also searched as that exact phrase at `phraseBoost`, and a listing whose text
   * states the opposite (`B to A`, `A from B`) keeps only `opposite` of its semantic score,
   * because sentence embeddings barely see word order. `opposite` 1 and `phraseBoost` 0: off.
   * `field` is where phrases with a connector are matched: `direction_text` indexes "to", "into"
   * and "from" as words, so "speech from text" (text to speech) is not the phrase "speech to
   * text"; `phrase_text` (indexes made before it) drops "to" and leaves its place to any word.
   */
  direction: { phraseBoost: number; opposite: number; field: string };
  /**
   * How text relevance is scaled by the listing's textQuality (1 minus its share of stuffed
   * words): `square` (default) or `none` (linear), or `off`.
   */
  stuffing: 'square' | 'none' | 'off';
  /** Boost of an MCP listing whose tool name is exactly the query (0 turns it off). */
  exactName: number;
  /**
   * A query that names something (search/typoPass.ts: every word in 1 to `maxListings` listings,
   * none an English word, no direction): the listings with all its words gain `boost`, so
   * neighbours in meaning alone cannot bury them (0 turns it off).
   */
  rareWords: { boost: number; maxListings: number };
  /**
   * The rank window (docs/catalog-reads.md, "Rank window"): sort=rank scores text relevance over
   * every match and the other factors only over the `window` best by text relevance; ranking
   * continues exactly past them. 0 ranks every match exactly (indexes made before it existed).
   */
  window: number;
  /** The price factor is `floor + (1 - floor) x decay`: within [floor, 1], so price only reorders comparable relevance. */
  price: { function: DecayFunction; origin: number; scale: number; offset: number; decay: number; floor: number };
  /** Settled listings: `floor + (1 - floor) x decay` of lastSettled; never settled: `neverSettled`. */
  recency: { function: DecayFunction; scale: string; offset: string; decay: number; floor: number; neverSettled: number };
  /**
   * Active health (issue 13): a checked listing whose uptime7d is below `threshold` gets
   * `floor + (1 - floor) x uptime7d / threshold` (down to `floor` at uptime 0); at or above it, or
   * never checked, exactly 1.
   */
  health: { threshold: number; floor: number };
  /**
   * Popularity (issue 24): distinct payers of the last 7 days (signals.uniquePayers7d), log-damped
   * and bounded: `1 + weight x log10(1 + payers) / log10(1 + saturation)`, exactly 1 with no
   * payer and `1 + weight` from `saturation` payers on. Many settlements by one wallet are one payer.
   */
  popularity: { weight: number; saturation: number };
  /**
   * Task queries (issue 45, search/taskSearch.ts): a query of at least MIN_TASK_WORDS words is
   * split into its needs; each need's best `candidates` listings are searched on their own and
   * the first `head` results cover every need before one repeats; `whole` 1: the whole query's
   * own best listings take turns after the needs'. `candidates` 0: no split.
   */
  tasks: { candidates: number; head: number; whole: number };
  /**
   * Paid outcomes (issue 45, src/outcomes): listings paid for after searches near this one in
   * meaning (the `k` nearest past searches at cosine `minSimilarity` or more), by at least
   * `minPayers` distinct payers, each payer once, weighed by similarity and halved every
   * `halfLifeDays`: `weight x (1 - exp(-payers / saturation))` added to relevance. `weight` 0: off.
   */
  outcomes: { weight: number; k: number; minSimilarity: number; minPayers: number; saturation: number; halfLifeDays: number };
  bm25: { k1: number; b: number };
}

/** `_meta.ranking.popularity` of indexes made before it existed: the shipped defaults. */
export const DEFAULT_POPULARITY = { weight: 0.1, saturation: 50 } as const;

/** `_meta.ranking.tasks` and `.outcomes` of indexes made before they existed: off. */
export const DEFAULT_TASKS = { candidates: 0, head: 5, whole: 0 } as const;
export const DEFAULT_OUTCOMES = { weight: 0, k: 100, minSimilarity: 0.7, minPayers: 3, saturation: 3, halfLifeDays: 30 } as const;

/** `_meta.ranking.health` of indexes made before it existed: the shipped defaults. */
export const DEFAULT_HEALTH = { threshold: 0.9, floor: 0.3 } as const;

/** The similarity every text field of the listing index uses (mappings/listings.json). */
export { SIMILARITY_NAME };
const DECAY_FUNCTIONS: readonly DecayFunction[] = ['exp', 'gauss', 'linear'];
/** Elasticsearch time units the decay accepts; whole numbers keep it simple to reason about. */
const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/;
/** Elasticsearch fuzziness: 0, 1, 2, AUTO or AUTO:low,high. */
const FUZZINESS = /^(?:[012]|AUTO(?::\d{1,2},\d{1,2})?)$/;
/** Bounds on the synonym list: it becomes query clauses, so it must stay small. */
const MAX_SYNONYM_GROUPS = 500;
const MAX_GROUP_SIZE = 12;
const MAX_PHRASE_LENGTH = 64;

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Numbers may arrive as strings (index settings always do). */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return NaN;
}

class Checker {
  readonly problems: string[] = [];
  number(path: string, value: unknown, min: number, max: number, opts: { minExclusive?: boolean; maxExclusive?: boolean } = {}): number {
    const n = toNumber(value);
    const tooLow = opts.minExclusive ? n <= min : n < min;
    const tooHigh = opts.maxExclusive ? n >= max : n > max;
    if (!Number.isFinite(n) || tooLow || tooHigh) {
      const range = `${opts.minExclusive ? '>' : '>='} ${min} and ${opts.maxExclusive ? '<' : '<='} ${max}`;
      this.problems.push(`${path}=${JSON.stringify(value)}: must be a number ${range}`);
    }
    return n;
  }
  duration(path: string, value: unknown, allowZero: boolean): string {
    const match = typeof value === 'string' ? DURATION.exec(value) : null;
    if (!match || (!allowZero && Number(match[1]) === 0)) {
      this.problems.push(`${path}=${JSON.stringify(value)}: must be a ${allowZero ? '' : 'positive '}duration like 7d, 12h, 30m, 90s`);
    }
    return String(value);
  }
  textField(path: string, value: unknown, textFields: ReadonlySet<string> | undefined): string {
    if (typeof value !== 'string' || (textFields && !textFields.has(value))) this.problems.push(`${path}=${JSON.stringify(value)}: not a text field of the index`);
    return String(value);
  }
  fuzziness(path: string, value: unknown): string {
    if (typeof value !== 'string' || !FUZZINESS.test(value)) this.problems.push(`${path}=${JSON.stringify(value)}: must be 0, 1, 2, AUTO or AUTO:low,high`);
    return String(value);
  }
  synonymGroups(path: string, value: unknown): string[][] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.length > MAX_SYNONYM_GROUPS) {
      this.problems.push(`${path}: must be a list of at most ${MAX_SYNONYM_GROUPS} groups`);
      return [];
    }
    return value.map((group, i) => {
      const phrases = Array.isArray(group) ? group : [];
      const valid =
        phrases.length >= 2 &&
        phrases.length <= MAX_GROUP_SIZE &&
        phrases.every((p) => typeof p === 'string' && p.trim() !== '' && p.length <= MAX_PHRASE_LENGTH && /[a-z0-9]/i.test(p));
      if (!valid) {
        this.problems.push(`${path}[${i}]=${JSON.stringify(group)}: must list 2 to ${MAX_GROUP_SIZE} phrases of 1 to ${MAX_PHRASE_LENGTH} characters`);
        return [];
      }
      return (phrases as string[]).map((p) => p.trim().toLowerCase());
    });
  }
  oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
    if (!(allowed as readonly unknown[]).includes(value)) this.problems.push(`${path}=${JSON.stringify(value)}: must be one of ${allowed.join(', ')}`);
    return value as T;
  }
  decayFunction(path: string, value: unknown): DecayFunction {
    if (value === undefined) return 'exp';
    if (!(DECAY_FUNCTIONS as readonly unknown[]).includes(value)) this.problems.push(`${path}=${JSON.stringify(value)}: must be one of ${DECAY_FUNCTIONS.join(', ')}`);
    return value as DecayFunction;
  }
}

/**
 * Checks raw tunables. `textFields` (the index's text fields) lets boosts on fields that do not
 * exist be rejected: a typo would otherwise silently drop a field from matching.
 */
export function validateRanking(
  ranking: unknown,
  similarity: unknown,
  textFields?: ReadonlySet<string>,
): { settings: RankingSettings; problems: [] } | { settings?: undefined; problems: string[] } {
  const check = new Checker();
  const raw = isObject(ranking) ? ranking : {};
  if (!isObject(ranking)) check.problems.push('_meta.ranking: missing or not an object');
  const fields: Record<string, number> = {};
  if (!isObject(raw.fields) || Object.keys(raw.fields).length === 0) check.problems.push('fields: must map at least one text field to a boost');
  else {
    for (const [field, boost] of Object.entries(raw.fields)) {
      if (textFields && !textFields.has(field)) check.problems.push(`fields.${field}: not a text field of the index`);
      fields[field] = check.number(`fields.${field}`, boost, 0, 1000);
    }
    if (Object.values(fields).every((b) => !(b > 0))) check.problems.push('fields: at least one boost must be above 0');
  }
  const price = isObject(raw.price) ? raw.price : {};
  const recency = isObject(raw.recency) ? raw.recency : {};
  // Absent in indexes made before these tunables existed: they then mean "off" / "no floor".
  const typos = isObject(raw.typos) ? raw.typos : { weight: 0, fuzziness: 'AUTO' };
  const synonyms = isObject(raw.synonyms) ? raw.synonyms : { weight: 0, groups: [] };
  const semantic = isObject(raw.semantic) ? raw.semantic : { weight: 0 };
  const health = isObject(raw.health) ? raw.health : DEFAULT_HEALTH;
  const popularity = isObject(raw.popularity) ? raw.popularity : DEFAULT_POPULARITY;
  const tasks = isObject(raw.tasks) ? raw.tasks : DEFAULT_TASKS;
  const outcomes = isObject(raw.outcomes) ? raw.outcomes : DEFAULT_OUTCOMES;
  const direction = isObject(raw.direction) ? raw.direction : { phraseBoost: 0, opposite: 1 };
  const rareWords = isObject(raw.rareWords) ? raw.rareWords : {};
  const bm25 = isObject(similarity) ? similarity : {};
  const settings: RankingSettings = {
    fields,
    typos: {
      weight: check.number('typos.weight', typos.weight, 0, 10),
      fuzziness: check.fuzziness('typos.fuzziness', typos.fuzziness ?? 'AUTO'),
      // Indexes made before it existed read the query as typed, as they did.
      spelling: check.oneOf('typos.spelling', typos.spelling ?? 'typed', TYPO_SPELLINGS),
    },
    synonyms: {
      weight: check.number('synonyms.weight', synonyms.weight, 0, 10),
      phraseBoost: check.number('synonyms.phraseBoost', synonyms.phraseBoost ?? 3, 0, 1000),
      groups: check.synonymGroups('synonyms.groups', synonyms.groups),
    },
    semantic: {
      weight: check.number('semantic.weight', semantic.weight, 0, 1000),
      k: Math.round(check.number('semantic.k', semantic.k ?? 50, 1, 1000)),
      numCandidates: Math.round(check.number('semantic.numCandidates', semantic.numCandidates ?? 100, 1, 10_000)),
      minSimilarity: check.number('semantic.minSimilarity', semantic.minSimilarity ?? 0, -1, 1),
      // Indexes made before fusion existed read it as the kNN clause they were tuned with.
      fusion: check.oneOf('semantic.fusion', semantic.fusion ?? 'weighted', SEMANTIC_FUSIONS),
      rankConstant: check.number('semantic.rankConstant', semantic.rankConstant ?? 60, 0, 1000),
      // Indexes made before it existed keep every filter inside the kNN search, as they did.
      preFilterMaxShare: check.number('semantic.preFilterMaxShare', semantic.preFilterMaxShare ?? 1, 0.05, 1),
    },
    direction: {
      phraseBoost: check.number('direction.phraseBoost', direction.phraseBoost ?? 0, 0, 1000),
      opposite: check.number('direction.opposite', direction.opposite ?? 1, 0, 1),
      field: check.textField('direction.field', direction.field ?? 'phrase_text', textFields),
    },
    exactName: check.number('exactName', raw.exactName ?? 0, 0, 1000),
    rareWords: {
      boost: check.number('rareWords.boost', rareWords.boost ?? 0, 0, 1000),
      maxListings: Math.round(check.number('rareWords.maxListings', rareWords.maxListings ?? 10, 1, 1000)),
    },
    // Elasticsearch's default index.max_rescore_window bounds it.
    window: Math.round(check.number('window', raw.window ?? 0, 0, 10_000)),
    stuffing: check.oneOf('stuffing', raw.stuffing ?? 'off', ['square', 'none', 'off'] as const),
    price: {
      function: check.decayFunction('price.function', price.function),
      origin: check.number('price.origin', price.origin, 0, Number.MAX_SAFE_INTEGER),
      scale: check.number('price.scale', price.scale, 0, Number.MAX_SAFE_INTEGER, { minExclusive: true }),
      offset: check.number('price.offset', price.offset ?? 0, 0, Number.MAX_SAFE_INTEGER),
      decay: check.number('price.decay', price.decay, 0, 1, { minExclusive: true, maxExclusive: true }),
      floor: check.number('price.floor', price.floor ?? 0, 0, 1),
    },
    recency: {
      function: check.decayFunction('recency.function', recency.function),
      scale: check.duration('recency.scale', recency.scale, false),
      offset: check.duration('recency.offset', recency.offset ?? '0s', true),
      decay: check.number('recency.decay', recency.decay, 0, 1, { minExclusive: true, maxExclusive: true }),
      floor: check.number('recency.floor', recency.floor ?? 0, 0, 1),
      neverSettled: check.number('recency.neverSettled', recency.neverSettled, 0, 1, { minExclusive: true }),
    },
    health: {
      threshold: check.number('health.threshold', health.threshold ?? DEFAULT_HEALTH.threshold, 0, 1),
      floor: check.number('health.floor', health.floor ?? DEFAULT_HEALTH.floor, 0, 1),
    },
    popularity: {
      weight: check.number('popularity.weight', popularity.weight ?? DEFAULT_POPULARITY.weight, 0, 1),
      saturation: check.number('popularity.saturation', popularity.saturation ?? DEFAULT_POPULARITY.saturation, 1, 1_000_000),
    },
    tasks: {
      candidates: Math.round(check.number('tasks.candidates', tasks.candidates ?? DEFAULT_TASKS.candidates, 0, 20)),
      head: Math.round(check.number('tasks.head', tasks.head ?? DEFAULT_TASKS.head, 1, 20)),
      whole: Math.round(check.number('tasks.whole', tasks.whole ?? DEFAULT_TASKS.whole, 0, 1)),
    },
    outcomes: {
      weight: check.number('outcomes.weight', outcomes.weight ?? DEFAULT_OUTCOMES.weight, 0, 1000),
      k: Math.round(check.number('outcomes.k', outcomes.k ?? DEFAULT_OUTCOMES.k, 1, 1000)),
      minSimilarity: check.number('outcomes.minSimilarity', outcomes.minSimilarity ?? DEFAULT_OUTCOMES.minSimilarity, -1, 1),
      minPayers: Math.round(check.number('outcomes.minPayers', outcomes.minPayers ?? DEFAULT_OUTCOMES.minPayers, 1, 1000)),
      saturation: check.number('outcomes.saturation', outcomes.saturation ?? DEFAULT_OUTCOMES.saturation, 0.1, 1000),
      halfLifeDays: check.number('outcomes.halfLifeDays', outcomes.halfLifeDays ?? DEFAULT_OUTCOMES.halfLifeDays, 0.1, 3650),
    },
    bm25: {
      k1: check.number('bm25.k1', bm25.k1 ?? 1.2, 0, 10),
      b: check.number('bm25.b', bm25.b ?? 0.75, 0, 1),
    },
  };
  return check.problems.length > 0 ? { problems: check.problems } : { settings, problems: [] };
}

/** Paths of the text fields (sub-fields included) of a mapping's properties. */
export function textFieldsOf(properties: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!isObject(properties)) return out;
  for (const [name, field] of Object.entries(properties)) {
    if (!isObject(field)) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    if (field.type === 'text') out.add(path);
    textFieldsOf(field.properties, path, out);
    textFieldsOf(field.fields, path, out);
  }
  return out;
}

/** The tunables mappings/listings.json ships with: used until the live index has been read. */
export function shippedRanking(): RankingSettings {
  const definition = loadIndexDefinition();
  const index = (definition.settings as { index?: { similarity?: Record<string, unknown> } }).index;
  const result = validateRanking(definition.mappings._meta?.ranking, index?.similarity?.[SIMILARITY_NAME]);
  if (!result.settings) throw new Error(`mappings/listings.json has invalid ranking tunables: ${result.problems.join('; ')}`);
  return result.settings;
}
