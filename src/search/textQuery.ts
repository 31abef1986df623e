/**
 * Text relevance of the ranked search (docs/catalog-reads.md, "Ranking"): the typed words, their
 * typo pass, synonym phrases, an exact tool name and the semantic (kNN) neighbours, as one bool of
 * should clauses. No function_score wraps it, so Lucene can skip listings that cannot reach the
 * page (block-max WAND) when the factors are applied to a window (search/rankingFactors.ts).
 */
import type { RankingSettings } from './rankingSettings.js';
import { expandQuery, withIdentifierWords } from './queryExpansion.js';
import { directionsIn, hasConnector, queryDirections, type Direction } from './queryDirections.js';
import { STOP_WORDS } from '../core/stopWords.js';
import { LruCache } from '../core/lruCache.js';
import { fusedClauses, PHRASE_FIELD, weightedClause, type SemanticInput } from './semanticFusion.js';

type Json = Record<string, unknown>;

/** One word may stand between a phrase's words; a reversed phrase needs more and does not match. */
const PHRASE_SLOP = 1;
/**
 * A phrase with a stop word ("image to text") is directional and leaves a gap where the stop word
 * was: with any slop the gap lets the opposite meaning in ("images from a text prompt"), so such
 * phrases match exactly.
 */
const slopFor = (phrase: string) => (phrase.toLowerCase().split(/[^a-z0-9]+/).some((w) => STOP_WORDS.has(w)) ? 0 : PHRASE_SLOP);

/** What the look-up of the query's words said (search/typoPass.ts); absent: send the typo pass, read the query as typed. */
export interface QueryReading {
  typoPass?: boolean;
  /** The query as the catalog spells it. */
  spelled?: string;
  /** Every word of the query, as the catalog writes it, when the query names something (`rareWords`). */
  rareWords?: readonly string[];
}

/**
 * Text relevance, one bool of:
 * - the typed words (plus identifier words) on every boosted field (shipped: `phrase_text`, every
 *   text of the listing in one field, its identifiers' words included);
 * - the same words fuzzily on those fields, for typos, at `typos.weight`, when some word of the
 *   query is in no listing (`typoPass`, decided by search/typoPass.ts);
 * - multi-word phrases of the synonym list that the query contains, as phrases (`phraseBoost`),
 *   and their synonyms as phrases (`phraseBoost x weight`), on the stemmed phrase field, the best
 *   phrase of each group only;
 * - a tool name typed exactly (`get_weather_forecast`), at `exactName`;
 * - when the query names something (`rareWords`: rare, non-English words, search/typoPass.ts),
 *   the listings with all of those words, at `rareWords.boost`: a neighbour in meaning gets most of
 *   `semantic.weight` just for being among the k nearest, which buried the one listing holding a
 *   made-up brand or code under listings merely near its meaningless embedding;
 * - the listings nearest in meaning to the query: a `knn` clause on their embeddings at
 *   `semantic.weight`, or their fused scores as constants per listing (search/semanticFusion.ts).
 * The extras but the name bonuses weigh less than the typed words, so an exact match still wins.
 * The text-quality multiplier is applied with the other factors (search/rankingFactors.ts).
 */
export function textQuery(q: string, settings: RankingSettings, semantic?: SemanticInput, reading: QueryReading = {}): Json {
  const lexical = lexicalPart(q, settings, reading);
  const meaning = semanticClauses(settings, lexical, semantic);
  // Without a semantic part the kept (frozen) clauses themselves: nothing is copied per read.
  return { bool: { should: meaning.length > 0 ? [...lexical.clauses, ...meaning] : lexical.clauses, minimum_should_match: 1 } };
}

/** The semantic part's clauses in the relevance bool: the kNN clause, the fused neighbours, or none. */
export function semanticClauses(settings: RankingSettings, lexical: LexicalPart, semantic: SemanticInput | undefined): Json[] {
  if (!semantic || settings.semantic.weight <= 0) return [];
  return 'neighbours' in semantic ? fusedClauses(semantic.neighbours) : [weightedClause(settings, semantic, lexical.directions)];
}

/** Everything of the text query but its semantic part, and the directions that part demotes the opposite of. */
export interface LexicalPart {
  clauses: readonly Json[];
  directions: Direction[];
}

/**
 * The lexical part depends on the query, the typo verdict and the tunables alone, and building it
 * (synonym matching, identifier words, directions) was most of the gateway's own work on a read
 * (lab journal 2026-11-26-evening-text-query-and-vectors.md): it is built once per query and tunables object (the
 * ranking cache keeps one object until an operator changes a tunable) and kept for the popular
 * queries. Frozen, so a caller that edited a shared clause would fail loudly instead of changing
 * other reads.
 */
const lexicalParts = new WeakMap<RankingSettings, LruCache<LexicalPart>>();
const LEXICAL_PARTS_KEPT = 1000;

export function lexicalPart(q: string, settings: RankingSettings, reading: QueryReading = {}): LexicalPart {
  let kept = lexicalParts.get(settings);
  if (!kept) lexicalParts.set(settings, (kept = new LruCache<LexicalPart>(LEXICAL_PARTS_KEPT)));
  // A query reads the same way for a minute at least (search/typoPass.ts), so the key holds the reading.
  const { typoPass = true, spelled, rareWords } = reading;
  const key = `${typoPass ? 't' : 'f'}${rareWords ? 'r' : ''}${spelled === undefined ? '' : `${spelled}\u0000`}${q}`;
  let part = kept.get(key);
  if (!part) kept.set(key, (part = deepFreeze(buildLexicalPart(q, settings, reading))));
  return part;
}

/**
 * `spelled`: the query as the catalog spells it (`typos.spelling` catalog: search/typoPass.ts).
 * Its words are read as typed words, synonyms and directions included ("reciept scanner" ranks as
 * "receipt scanner" would, not below a listing that only has "scanner"); the typo pass still
 * matches the words as typed, in case the buyer meant another close word.
 */
function buildLexicalPart(q: string, settings: RankingSettings, { typoPass = true, spelled, rareWords }: QueryReading): LexicalPart {
  const boosted = Object.entries(settings.fields).filter(([, boost]) => boost > 0);
  const list = () => boosted.map(([field, boost]) => `${field}^${boost}`);
  const { typos, synonyms } = settings;
  const meant = spelled ?? q;
  const expansion = synonyms.weight > 0 ? expandQuery(meant, synonyms.groups) : { looseWords: meant, groups: [] };
  const words = withIdentifierWords(expansion.looseWords);
  const typedWords = spelled === undefined ? words : withIdentifierWords(q);
  const clauses: Json[] = [];
  if (words !== '') {
    // cross_fields: each word scores once, in its best field, and the words add up, so a listing
    // with every word ("translate" in its description, "documents" in its tags) beats one with a
    // single word in a short title (best_fields scored a field's words and kept the best field).
    // The shipped fields share one analyzer: over several, cross_fields is a dis_max of the groups,
    // through which Lucene cannot skip, so it scores every match (docs/catalog-reads.md, "Ranking").
    clauses.push({ multi_match: { query: words, fields: list(), type: 'cross_fields', tie_breaker: 0.3 } });
    if (typos.weight > 0 && typoPass) {
      clauses.push({
        multi_match: {
          query: typedWords, fields: list(), type: 'best_fields',
          fuzziness: typos.fuzziness, prefix_length: 1, max_expansions: 20, boost: typos.weight,
        },
      });
    }
  }
  // PHRASE_FIELD holds every text of the listing, stemmed, with positions.
  // A typed concept matches as a phrase ("crypto spot prices" for "crypto price"), never as loose
  // words: "speech to text" must not find "text to speech". A group counts once, for its best
  // phrase: a listing repeating "llm", "gpt" and "language model" gains no more than one of them.
  // A phrase with a connector ("speech to text") on `direction.field`, where "to" is a word and
  // "speech from text" (text to speech) does not match it.
  const phrase = (query: string, boost: number) => ({
    match_phrase: { [hasConnector(query) ? settings.direction.field : PHRASE_FIELD]: { query, boost, slop: slopFor(query) } },
  });
  for (const group of expansion.groups) {
    const phrases = [
      ...group.typed.map((typed) => phrase(typed, synonyms.phraseBoost)),
      ...group.synonyms.map((synonym) => phrase(synonym, synonyms.phraseBoost * synonyms.weight)),
    ];
    clauses.push(phrases.length === 1 ? phrases[0]! : { dis_max: { queries: phrases } });
  }
  const typedAsSynonym = new Set(expansion.groups.flatMap((g) => g.typed));
  if (settings.direction.phraseBoost > 0) {
    // A typed direction no synonym phrase covers ("markdown to html") as its exact phrase; its words stay loose words too.
    for (const d of directionsIn(meant)) if (!typedAsSynonym.has(d.phrase)) clauses.push(phrase(d.phrase, settings.direction.phraseBoost));
  }
  if (settings.exactName > 0) clauses.push({ constant_score: { filter: { term: { 'name.raw': q.trim() } }, boost: settings.exactName } });
  if (settings.rareWords.boost > 0 && rareWords && rareWords.length > 0) {
    const every = rareWords.map((word) => ({ term: { [PHRASE_FIELD]: word } }));
    clauses.push({ constant_score: { filter: { bool: { filter: every } }, boost: settings.rareWords.boost } });
  }
  return { clauses, directions: directionsOf(meant, expansion.groups) };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The query's directions: typed, and of every synonym phrase it was expanded with. */
const directionsOf = (q: string, groups: ReturnType<typeof expandQuery>['groups']) => queryDirections(q, groups.flatMap((g) => [...g.typed, ...g.synonyms]));
