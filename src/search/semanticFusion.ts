/**
 * How the semantic neighbours' scores join the words' score in text relevance (issue 23,
 * docs/catalog-reads.md "Fusion"), by `semantic.fusion`:
 * - `weighted`: a `knn` clause inside the relevance bool, scoring `weight x (1 + cosine) / 2`:
 *   a neighbour at `minSimilarity` gets most of what the nearest one gets (26 of 40 shipped);
 * - `normalised` and `rrf`: the k nearest are found first by a kNN search of their own (the same
 *   filters, k and candidates: the same kNN cost, one more round trip), their scores are put on a
 *   scale of this query's own (`fuseNeighbours`), and each comes back into the relevance bool as
 *   a constant for its id. No script: this Elasticsearch has no scripting module, no rank-rrf, and
 *   a function_score weight cannot be negative, so the kNN score's constant part cannot be taken
 *   off inside the query. The constants are part of the relevance query, so explain's product
 *   and the rank window hold as with the clause.
 */
import type { RankingSettings } from './rankingSettings.js';
import { oppositesOf, spellingsOf, statedDirections, type Direction } from './queryDirections.js';
import { VECTOR_FIELD } from '../store/elasticsearch/storedVector.js';

type Json = Record<string, unknown>;

/** Title, description, name, tags and identifier words copied into one stemmed field with positions (mappings/listings.json). */
export const PHRASE_FIELD = 'phrase_text';
/** The listing's text embedding (dense_vector, cosine; src/semantic). */
export const EMBEDDING_FIELD = VECTOR_FIELD;
/** The name of the opposite-direction probe in the kNN search of its own (read from matched_queries). */
export const OPPOSITE_DIRECTION = 'oppositeDirection';

/**
 * The query's embedding and where the read's filters apply: `filter` inside the kNN search (its k
 * are all eligible), `postFilter` after it (a broad filter: search/filterShare.ts), with k and the
 * candidates multiplied by `widen` so that about k of the neighbours pass it.
 */
export interface NearestInput {
  vector: number[];
  filter: Json[];
  postFilter: Json[];
  widen: number;
}

/** A neighbour as the kNN search of its own found it. */
export interface Neighbour {
  id: string;
  /** Elasticsearch's `(1 + cosine) / 2`, times `direction.opposite` when `opposite`. */
  score: number;
  /** It states the opposite of one of the query's directions (and none of them). */
  opposite: boolean;
}

/** A neighbour's share of the relevance, already on this query's scale. */
export interface FusedNeighbour {
  id: string;
  boost: number;
}

/** The semantic part of text relevance: the kNN clause (`weighted`) or the fused neighbours. */
export type SemanticInput = NearestInput | { neighbours: FusedNeighbour[] };

/**
 * Elasticsearch scores a cosine kNN match `(1 + cosine) / 2`, times the boost; listings below
 * `minSimilarity` do not match at all, so an unrelated query does not drag in the k nearest anyway.
 *
 * The boost goes on a `function_score` around the clause, not on the clause: with both
 * `similarity` and `boost`, Elasticsearch 8.19 tells Lucene's block-max WAND the clause's
 * unboosted maximum, so a ranked search that skips non-competitive listings (track_total_hits
 * false: the rank window) skipped the neighbours themselves, and a listing found by meaning alone
 * never reached the page (test/search-knn-wand.test.ts; docs/catalog-reads.md, "Rank window").
 * The scores are the same.
 */
function knnClause(tunables: RankingSettings['semantic'], semantic: NearestInput, boost: number): Json {
  const k = Math.ceil(tunables.k * semantic.widen);
  const knn = {
    knn: {
      field: EMBEDDING_FIELD,
      query_vector: semantic.vector,
      k,
      num_candidates: Math.max(k, Math.ceil(tunables.numCandidates * semantic.widen)),
      similarity: tunables.minSimilarity,
      filter: semantic.filter,
    },
  };
  return boost === 1 ? knn : { function_score: { query: knn, boost } };
}

/**
 * The kNN clause, its score multiplied by `opposite` for a listing stating the opposite of one of
 * the query's directions and none of them (search/queryDirections.ts): the embedding cannot tell
 * "speech to text" from "text to speech", the words can. Phrases match exactly: on `phrase_text`
 * the stop word's position is one word wide, and any slop let ordinary text in ("the text layer of
 * a PDF" is not "text to PDF"); on `direction_text` the connectors are words, so the statements
 * are exact and the roles ("from text") may have one word between. A `boosting` query: the
 * phrases are checked only on the k neighbours.
 */
function withDirection(knn: Json, typed: Direction[], settings: RankingSettings['direction'], name?: string): Json {
  if (typed.length === 0 || settings.opposite >= 1) return knn;
  const exact = (text: string) => ({ match_phrase: { [settings.field]: { query: text, slop: 0 } } });
  // Identifier words are in the phrase fields with their abbreviations (`address_to_coords`).
  const directions = typed.flatMap(spellingsOf);
  let stated: Json[];
  let same: Json[];
  if (settings.field === PHRASE_FIELD) {
    // "to" is no word here: "B to A" also matches "B from A", which is `d` itself.
    stated = directions.flatMap((d) => {
      const o = oppositesOf(d);
      return [{ bool: { must: [exact(o.reversed)], must_not: [exact(o.sameDirection)] } }, exact(o.fromReversed)];
    });
    same = directions.map((d) => exact(d.phrase));
  } else {
    const loose = (text: string) => ({ match_phrase: { [settings.field]: { query: text, slop: 1 } } });
    const statements = directions.map(statedDirections);
    stated = statements.flatMap((d) => [...d.opposite.map(exact), ...d.roles.map(loose)]);
    same = statements.flatMap((d) => d.same.map(exact));
  }
  const negative = { bool: { should: stated, minimum_should_match: 1, must_not: same, ...(name ? { _name: name } : {}) } };
  return { boosting: { positive: knn, negative, negative_boost: settings.opposite } };
}

/** `weighted`: the kNN clause at `semantic.weight`, demoted for the opposite direction. */
export function weightedClause(settings: RankingSettings, semantic: NearestInput, directions: Direction[]): Json {
  return withDirection(knnClause(settings.semantic, semantic, settings.semantic.weight), directions, settings.direction);
}

/** `normalised` and `rrf`: each neighbour a constant for its id, so it scores its share whatever its words. */
export function fusedClauses(neighbours: FusedNeighbour[]): Json[] {
  return neighbours.map(({ id, boost }) => ({ constant_score: { filter: { ids: { values: [id] } }, boost } }));
}

/**
 * The kNN search of its own (`normalised`, `rrf`): the k nearest with the read's filters, demoted
 * for the opposite direction as in the clause, the demotion named so the service can tell it
 * from distance. Ids (doc values) and scores only.
 */
export function nearestSearchBody(settings: RankingSettings, semantic: NearestInput, directions: Direction[]): Json {
  return {
    size: settings.semantic.k,
    // No stored field read at all (not even _id): the listing id from doc values.
    _source: false,
    stored_fields: '_none_',
    docvalue_fields: ['id'],
    track_total_hits: false,
    query: postFiltered(withDirection(knnClause(settings.semantic, semantic, 1), directions, settings.direction, OPPOSITE_DIRECTION), semantic.postFilter),
  };
}

/** The kNN search of its own with the filters left after it: the main read's query applies them to the clause. */
function postFiltered(query: Json, postFilter: Json[]): Json {
  return postFilter.length === 0 ? query : { bool: { must: [query], filter: postFilter } };
}

/** Six significant digits: the constants go into the request body and the read cache's key. */
const rounded = (x: number) => Number(x.toPrecision(6));

/**
 * The neighbours' shares on this query's scale, `weight` for the best. Ranked and normalised by
 * meaning (a demoted listing's score divided back by `direction.opposite`), then a listing stating
 * the opposite direction keeps `opposite` of its share, as with the clause:
 * - `normalised`: `(score - floor) / (best - floor)`, floor the score at `minSimilarity`: the
 *   constant part of `(1 + cosine) / 2` is gone, and the nearest listing of a query gets `weight`
 *   however near it is in absolute terms;
 * - `rrf`: `(rankConstant + 1) / (rankConstant + rank)`, rank 1 the nearest: distance only orders.
 */
export function fuseNeighbours(found: Neighbour[], settings: RankingSettings): FusedNeighbour[] {
  const { weight, fusion, minSimilarity, rankConstant } = settings.semantic;
  const opposite = settings.direction.opposite;
  const byMeaning = found
    .map((n) => ({ id: n.id, score: n.opposite && opposite > 0 ? n.score / opposite : n.score, keep: n.opposite ? opposite : 1 }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const best = byMeaning[0]?.score ?? 0;
  const floor = (1 + minSimilarity) / 2;
  const share = (score: number, rank: number) => {
    if (fusion === 'rrf') return (rankConstant + 1) / (rankConstant + rank);
    return best > floor ? Math.min(1, Math.max(0, (score - floor) / (best - floor))) : 1;
  };
  return byMeaning
    .map((n, i) => ({ id: n.id, boost: rounded(weight * share(n.score, i + 1) * n.keep) }))
    .filter((n) => n.boost > 0);
}
