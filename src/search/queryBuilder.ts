/**
 * Turns a validated read into the Elasticsearch search body. The same builder serves the API and
 * the benchmark (which sends these bodies straight to Elasticsearch), so both measure one query.
 */
import type { CatalogFilters, ReadRequest } from './readRequest.js';
import type { RankingSettings } from './rankingSettings.js';
import type { SortValue } from './cursor.js';
import type { QueryVector } from '../semantic/queryEmbeddings.js';
import { NOT_REMOVED } from '../store/elasticsearch/listingQueries.js';
import { expandQuery, withIdentifierWords } from './queryExpansion.js';

type Json = Record<string, unknown>;

/** The listing's 7-day health uptime (absent until it was checked once). */
const UPTIME = 'signals.health.uptime7d';

/** Only what `toListing` reads: Elasticsearch sends less, Node parses less. */
export const LISTING_SOURCE_FIELDS = [
  'id', 'type', 'resource', 'name', 'description', 'inputSchema', 'outputSchema', 'tags', 'payment', 'describe', 'signals',
];

/**
 * Dates sort with `missing: 0` rather than `_last`: Elasticsearch returns `_last` as Long.MIN_VALUE,
 * which it then refuses to parse back as a date in `search_after`. Epoch 0 sorts last in
 * descending order all the same.
 */
const NEWEST_FIRST_SEEN = { firstSeen: { order: 'desc', missing: 0 } };
const ID = { id: { order: 'asc' } };
/**
 * /discovery/resources: exactly the index sort of mappings/listings.json (firstSeen desc, id asc,
 * missing values last), so Elasticsearch reads each segment in that order and stops after
 * `limit + 1` matches instead of sorting every match (docs/catalog-reads.md, "Cost"). Every
 * stored listing has a firstSeen (the write path sets it), so `_last` never reaches a cursor.
 */
const RESOURCES_ORDER = [{ firstSeen: { order: 'desc' } }, ID];

export function sortFor(request: ReadRequest): Json[] {
  if (request.kind === 'resources') return RESOURCES_ORDER;
  switch (request.sort) {
    case 'price':
      return [{ 'payment.amount': { order: 'asc' } }, { _score: { order: 'desc' } }, ID];
    case 'recent':
      return [{ 'signals.lastSettled': { order: 'desc', missing: 0 } }, NEWEST_FIRST_SEEN, ID];
    default:
      return [{ _score: { order: 'desc' } }, ID];
  }
}

export function filterClauses(filters: CatalogFilters): { filter: Json[]; must_not: Json[] } {
  const filter: Json[] = [];
  if (filters.type) filter.push({ term: { type: filters.type } });
  if (filters.network) filter.push({ term: { 'payment.network': filters.network } });
  // A string keeps integers above 2^53 exact: Elasticsearch parses it as a long.
  if (filters.maxPrice !== undefined) filter.push({ range: { 'payment.amount': { lte: filters.maxPrice } } });
  if (filters.asset) filter.push({ term: { 'payment.asset': filters.asset } });
  if (filters.scheme) filter.push({ term: { 'payment.scheme': filters.scheme } });
  if (filters.payTo) filter.push({ term: { 'payment.payTo': filters.payTo } });
  // A listing never checked has no uptime and so does not pass (README "Active health").
  if (filters.minUptime !== undefined && filters.minUptime > 0) filter.push({ range: { [UPTIME]: { gte: filters.minUptime } } });
  if (filters.capability) {
    filter.push({
      bool: { should: [{ term: { 'describe.tags': filters.capability } }, { term: { tags: filters.capability } }], minimum_should_match: 1 },
    });
  }
  return { filter, must_not: [NOT_REMOVED] };
}

/** Names under which explain=1 reads Elasticsearch's score of each factor (see explain.ts). */
export const FACTOR_NAMES = { relevance: 'relevance', price: 'priceBoost', recency: 'recencyBoost', health: 'healthBoost' } as const;

/** Fields analysed with the hunspell stemmer (mappings/listings.json). */
const isStemmed = (field: string) => field.endsWith('.stemmed');
/**
 * Title, description, name and tags copied into one stemmed field with positions, for phrase
 * matches; the scored fields index term presence only, so repeating a word adds nothing.
 */
const PHRASE_FIELD = 'phrase_text';
/** One word may stand between a phrase's words; a reversed phrase needs more and does not match. */
const PHRASE_SLOP = 1;
/**
 * The stop words of the index's analyzers (Elasticsearch's `_english_` list). A phrase with one
 * ("image to text") is directional and leaves a gap where the stop word was: with any slop the
 * gap lets the opposite meaning in ("images from a text prompt"), so such phrases match exactly.
 */
const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with']);
const slopFor = (phrase: string) => (phrase.toLowerCase().split(/[^a-z0-9]+/).some((w) => STOP_WORDS.has(w)) ? 0 : PHRASE_SLOP);
/** Shingle fields hold word pairs: fuzzy single words never match them. */
const isPhrases = (field: string) => field.endsWith('.phrases');
/** The listing's text embedding (dense_vector, cosine; src/semantic). */
const EMBEDDING_FIELD = 'embedding';

/**
 * Text relevance, one bool of:
 * - the typed words (plus identifier words) on every boosted field;
 * - the same words fuzzily on the exact word fields, for typos, at `typos.weight`, when some word
 *   of the query is in no listing (`typoPass`, decided by search/typoPass.ts);
 * - multi-word phrases of the synonym list that the query contains, as phrases (`phraseBoost`),
 *   and their synonyms as phrases (`phraseBoost x weight`), on the stemmed phrase field, the best
 *   phrase of each group only;
 * - a tool name typed exactly (`get_weather_forecast`), at `exactName`;
 * - the listings nearest in meaning to the query (`knn` on their embeddings), at `semantic.weight`.
 * The extras weigh less than the typed words, so an exact match still wins.
 */
export function textQuery(q: string, settings: RankingSettings, semantic?: SemanticInput, typoPass = true): Json {
  const boosted = Object.entries(settings.fields).filter(([, boost]) => boost > 0);
  const list = (keep: (field: string) => boolean) => boosted.filter(([field]) => keep(field)).map(([field, boost]) => `${field}^${boost}`);
  const { typos, synonyms } = settings;
  const expansion = synonyms.weight > 0 ? expandQuery(q, synonyms.groups) : { looseWords: q, groups: [] };
  const words = withIdentifierWords(expansion.looseWords);
  const clauses: Json[] = [];
  if (words !== '') {
    // cross_fields: each word scores once, in its best field, and the words add up, so a listing
    // with every word ("translate" in its description, "documents" in its tags) beats one with a
    // single word in a short title (best_fields scored a field's words and kept the best field).
    clauses.push({ multi_match: { query: words, fields: list(() => true), type: 'cross_fields', tie_breaker: 0.3 } });
    if (typos.weight > 0 && typoPass) {
      clauses.push({
        multi_match: {
          query: words, fields: list((f) => !isStemmed(f) && !isPhrases(f)), type: 'best_fields',
          fuzziness: typos.fuzziness, prefix_length: 1, max_expansions: 20, boost: typos.weight,
        },
      });
    }
  }
  // PHRASE_FIELD holds every text of the listing, stemmed, with positions (the scored fields keep none).
  // A typed concept matches as a phrase ("crypto spot prices" for "crypto price"), never as loose
  // words: "speech to text" must not find "text to speech". A group counts once, for its best
  // phrase: a listing repeating "llm", "gpt" and "language model" gains no more than one of them.
  const phrase = (query: string, boost: number) => ({ match_phrase: { [PHRASE_FIELD]: { query, boost, slop: slopFor(query) } } });
  for (const group of expansion.groups) {
    const phrases = [
      ...group.typed.map((typed) => phrase(typed, synonyms.phraseBoost)),
      ...group.synonyms.map((synonym) => phrase(synonym, synonyms.phraseBoost * synonyms.weight)),
    ];
    clauses.push(phrases.length === 1 ? phrases[0]! : { dis_max: { queries: phrases } });
  }
  if (settings.exactName > 0) clauses.push({ constant_score: { filter: { term: { 'name.raw': q.trim() } }, boost: settings.exactName } });
  if (semantic && settings.semantic.weight > 0) clauses.push(knnClause(settings.semantic, semantic));
  const text = { bool: { should: clauses, minimum_should_match: 1 } };
  if (settings.stuffing === 'off') return text;
  // Stuffed text is demoted inside relevance (listings written before textQuality count as 1).
  return {
    function_score: {
      query: text,
      functions: [{ field_value_factor: { field: 'textQuality', modifier: settings.stuffing, missing: 1 } }],
      boost_mode: 'multiply',
    },
  };
}

/**
 * The query's embedding and the read's filters, applied inside the kNN search (so its k are all
 * eligible), with its model's: listing vectors of another model are never compared with it.
 */
export interface SemanticInput {
  vector: number[];
  filter: Json[];
}

function modelFilter(vector: QueryVector): Json[] {
  return vector.otherModelsStored ? [{ term: { embeddingModel: vector.model } }] : [];
}

/**
 * Elasticsearch scores a cosine kNN match `(1 + cosine) / 2`, times the boost; listings below
 * `minSimilarity` do not match at all, so an unrelated query does not drag in the k nearest anyway.
 */
function knnClause(tunables: RankingSettings['semantic'], semantic: SemanticInput): Json {
  return {
    knn: {
      field: EMBEDDING_FIELD,
      query_vector: semantic.vector,
      k: tunables.k,
      num_candidates: Math.max(tunables.k, tunables.numCandidates),
      similarity: tunables.minSimilarity,
      filter: semantic.filter,
      boost: tunables.weight,
    },
  };
}

/**
 * A factor bounded to [floor, 1]: `floor + (1 - floor) x decay`, as function_score functions
 * summed (score_mode sum). A weight of 0 is left out rather than sent.
 */
function floored(floor: number, decay: Json, filter?: Json): Json[] {
  const withFilter = (fn: Json) => (filter ? { filter, ...fn } : fn);
  const parts: Json[] = [];
  if (floor > 0) parts.push(withFilter({ weight: floor }));
  if (floor < 1) parts.push(withFilter({ ...decay, weight: 1 - floor }));
  return parts;
}

/**
 * The health factor (issue 13): exactly 1 (a weight) for a listing never checked or at/above the
 * threshold; below it `floor + (1 - floor) x uptime / threshold`, as a weight plus a linear
 * field_value_factor, under mutually exclusive filters so every listing gets exactly one factor.
 */
function healthFunctions({ threshold, floor }: RankingSettings['health']): Json[] {
  const below = { range: { [UPTIME]: { lt: threshold } } };
  const functions: Json[] = [{ filter: { bool: { must_not: below } }, weight: 1 }];
  // threshold 0: nothing is below it (uptime is never negative), so the factor is 1 everywhere.
  if (threshold > 0 && floor > 0) functions.push({ filter: below, weight: floor });
  if (threshold > 0 && floor < 1) {
    functions.push({ filter: below, field_value_factor: { field: UPTIME, factor: (1 - floor) / threshold, modifier: 'none', missing: 0 } });
  }
  return functions;
}

function factorFunctions(settings: RankingSettings, now: number): { price: Json[]; recency: Json[]; health: Json[] } {
  const { price, recency } = settings;
  const settled = { exists: { field: 'signals.lastSettled' } };
  return {
    price: floored(price.floor, { [price.function]: { 'payment.amount': { origin: price.origin, scale: price.scale, offset: price.offset, decay: price.decay } } }),
    // Mutually exclusive filters: every listing gets exactly one recency factor.
    recency: [
      ...floored(
        recency.floor,
        { [recency.function]: { 'signals.lastSettled': { origin: now, scale: recency.scale, offset: recency.offset, decay: recency.decay } } },
        settled,
      ),
      { filter: { bool: { must_not: settled } }, weight: recency.neverSettled },
    ],
    health: healthFunctions(settings.health),
  };
}

/** `query` x (the sum of `functions`): one factor of the ranked product. */
const times = (query: Json, functions: Json[]): Json => ({ function_score: { query, functions, score_mode: 'sum', boost_mode: 'multiply' } });

/**
 * The ranked query: relevance x price factor x recency factor x health factor. Each factor is a function_score
 * around the previous one (score_mode sum inside a factor, boost_mode multiply between them),
 * because a decay cannot be floored inside a single function_score's product.
 */
export function rankedQuery(q: string, settings: RankingSettings, now: number, named = false, semantic?: SemanticInput, typoPass = true): Json {
  const text = textQuery(q, settings, semantic, typoPass);
  const relevance = named ? nameQuery(text, FACTOR_NAMES.relevance) : text;
  const factors = factorFunctions(settings, now);
  return times(times(times(relevance, factors.price), factors.recency), factors.health);
}

function nameQuery(query: Json, name: string): Json {
  const [kind, body] = Object.entries(query)[0] as [string, Json];
  return { [kind]: { ...body, _name: name } };
}

/**
 * explain=1 only: the price and recency functions of the ranked query again, each alone over
 * match_all and named, as a post_filter (no effect on matching: they match every document; none
 * on the score: filters do not score). With include_named_queries_score Elasticsearch reports, per
 * hit, the score of each: the factors it multiplied into `_score`.
 */
function factorProbes(settings: RankingSettings, now: number): Json {
  const factors = factorFunctions(settings, now);
  const probe = (name: string, functions: Json[]) => ({
    function_score: { query: { match_all: {} }, functions, score_mode: 'sum', boost_mode: 'replace', _name: name },
  });
  // A conjunction: as `should` clauses Elasticsearch iterated them for every document (3-4x the search).
  return {
    bool: {
      filter: [probe(FACTOR_NAMES.price, factors.price), probe(FACTOR_NAMES.recency, factors.recency), probe(FACTOR_NAMES.health, factors.health)],
    },
  };
}

export interface PageOptions {
  searchAfter?: SortValue[];
  /** Epoch ms: the recency origin, pinned across the pages of one search. */
  now: number;
  /** The query's embedding, when semantic retrieval is on. */
  queryVector?: QueryVector;
  /** Whether to send the typo pass (absent: sent). */
  typoPass?: boolean;
}

export function buildSearchBody(
  request: ReadRequest,
  settings: RankingSettings,
  page: PageOptions,
  sourceFields: readonly string[] = LISTING_SOURCE_FIELDS,
): Json {
  const { filter, must_not } = filterClauses(request.filters);
  const body: Json = {
    size: request.limit + 1, // one extra hit tells whether a next page exists
    sort: sortFor(request),
    _source: { includes: sourceFields },
    track_total_hits: request.countTotal === true,
  };
  if (request.offset) body.from = request.offset;
  if (request.kind === 'search' && request.q !== undefined) {
    // The kNN search takes the read's own filters, so its k neighbours all pass them; "not removed"
    // is left to the outer query (removed listings carry no vector: store/elasticsearch/listingStore.ts),
    // so a read without filters runs an unfiltered kNN instead of building a filter over every listing.
    // Only while listing vectors of another model are stored (a change of EMBEDDING_MODEL being
    // caught up) does it also filter on the query's model: those are never compared with it.
    const semantic = page.queryVector ? { vector: page.queryVector.values, filter: [...filter, ...modelFilter(page.queryVector)] } : undefined;
    body.query = { bool: { must: [rankedQuery(request.q, settings, page.now, request.explain, semantic, page.typoPass)], filter, must_not } };
    // A post_filter: it only checks hits the query already matched, and leaves the ranked query as
    // the plain search runs it (only its text query gets a name).
    if (request.explain) body.post_filter = factorProbes(settings, page.now);
  } else {
    body.query = { bool: { filter, must_not } };
  }
  // sort=recent does not sort on _score; explain still reports the score of every hit.
  if (request.explain && request.sort === 'recent') body.track_scores = true;
  if (page.searchAfter) body.search_after = page.searchAfter;
  return body;
}

/** URL parameters of the search: only the response fields the service reads leave Elasticsearch. */
export function searchParamsFor(request: ReadRequest): { filter_path: string; include_named_queries_score?: boolean } {
  const total = request.countTotal ? ',hits.total' : '';
  if (!request.explain) return { filter_path: `hits.hits._source,hits.hits.sort${total}` };
  return { filter_path: `hits.hits._source,hits.hits.sort,hits.hits._score,hits.hits.matched_queries${total}`, include_named_queries_score: true };
}
