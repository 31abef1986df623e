/**
 * The ranked search with one part switched off (or changed) at a time, for the cost breakdown of
 * bench-search-parts (docs/catalog-reads.md, "Where the cost goes"). A variant changes the
 * tunables the query builder reads, or the body it built; everything else stays the shipped query.
 */
import { shippedRanking, type RankingSettings } from '../../src/door.js';

type Json = Record<string, unknown>;

export interface SearchVariant {
  label: string;
  settings?: (settings: RankingSettings) => RankingSettings;
  body?: (body: Json) => Json;
}

/** Deep copy, then `edit` every object of the body that has key `key`. */
function editAll(body: Json, key: string, edit: (value: Json) => Json | undefined): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit).filter((n) => n !== undefined);
    if (typeof node !== 'object' || node === null) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) out[k] = visit(v);
    if (key in out) return edit(out);
    return out;
  };
  return visit(body) as Json;
}

/** The first `knn` query in a search body (inside whatever wraps it: function_score, boosting, bool), alone. */
export function findKnn(value: unknown): Json | undefined {
  if (!value || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && 'knn' in value) return { knn: (value as Json).knn };
  for (const child of Object.values(value)) {
    const found = findKnn(child);
    if (found) return found;
  }
  return undefined;
}

/** The body with the weighted kNN clause (a function_score around a knn, search/semanticFusion.ts) rebuilt by `rebuild`. */
function rewrapKnn(body: Json, rebuild: (knn: Json, weight: number) => Json): Json {
  return editAll(body, 'function_score', (node) => {
    const fs = node.function_score as { query?: Json; boost?: number; functions?: unknown };
    const knn = fs.query?.knn as Json | undefined;
    return knn && fs.functions === undefined && fs.boost !== undefined ? rebuild(knn, fs.boost) : node;
  });
}

/** The text fields ranking shipped with before issue 22 (fifteen exact, stemmed and word-pair fields). */
export const FIFTEEN_FIELDS: Record<string, number> = {
  'describe.title': 3, 'describe.title.phrases': 2, 'describe.title.stemmed': 2.5, name: 3, 'name.stemmed': 2.5,
  'describe.description': 1, 'describe.description.stemmed': 0.8, description: 1, 'description.stemmed': 0.8,
  'describe.tags.text': 2, 'describe.tags.stemmed': 1.6, 'tags.text': 2, 'tags.stemmed': 1.6, keywords: 1.5, 'keywords.stemmed': 1.2,
};

const window = (size: number) => (s: RankingSettings): RankingSettings => ({ ...s, window: size });

export const SEARCH_VARIANTS: SearchVariant[] = [
  { label: 'shipped ranking' },
  { label: 'exact (no rank window)', settings: window(0) },
  { label: 'rank window 100', settings: window(100) },
  { label: 'rank window 1000', settings: window(1000) },
  {
    label: 'before issue 22 (15 fields, exact, kNN filtered on "not removed")',
    settings: (s) => ({ ...s, window: 0, fields: FIFTEEN_FIELDS }),
    body: (b) => editAll(b, 'knn', (node) => {
      const knn = node.knn as { filter: Json[] };
      return { ...node, knn: { ...knn, filter: [...knn.filter, { bool: { must_not: [{ term: { removed: true } }] } }] } };
    }),
  },
  { label: 'no kNN clause', settings: (s) => ({ ...s, semantic: { ...s.semantic, weight: 0 } }) },
  {
    label: 'kNN without the read\'s filters',
    body: (b) => editAll(b, 'knn', (node) => ({ ...node, knn: { ...(node.knn as Json), filter: [] } })),
  },
  ...[2, 3].map((factor) => ({
    label: `kNN post-filtered: the read's filters left to the query, k and candidates x${factor} where it had some`,
    body: (b: Json) => editAll(b, 'knn', (node) => {
      const knn = node.knn as Json & { filter: Json[]; k: number; num_candidates: number };
      if (knn.filter.length === 0) return node;
      return { ...node, knn: { ...knn, filter: [], k: knn.k * factor, num_candidates: knn.num_candidates * factor } };
    }),
  })),
  ...[0.3, 0.5].map((max) => ({
    label: `kNN: filters matching over ${max} of the catalog left to the query (preFilterMaxShare ${max})`,
    settings: (s: RankingSettings) => ({ ...s, semantic: { ...s.semantic, preFilterMaxShare: max } }),
  })),
  {
    label: 'kNN: every filter inside it (preFilterMaxShare 1)',
    settings: (s: RankingSettings) => ({ ...s, semantic: { ...s.semantic, preFilterMaxShare: 1 } }),
  },
  {
    // A larger k measured better among 20,000 distractors (bench filtered-relevance, 2026-12-07 journal).
    label: 'kNN: k / candidates 40',
    settings: (s: RankingSettings) => ({ ...s, semantic: { ...s.semantic, k: 40, numCandidates: 40 } }),
  },
  {
    label: 'kNN: preFilterMaxShare 0.3 and k / candidates 10',
    settings: (s: RankingSettings) => ({ ...s, semantic: { ...s.semantic, preFilterMaxShare: 0.3, k: 10, numCandidates: 10 } }),
  },
  {
    // Before the WAND fix: the weight on the kNN clause itself, beside its similarity floor, which
    // Elasticsearch 8.19 reports to block-max WAND unweighted (search/semanticFusion.ts).
    label: 'kNN weight on the clause (before the WAND fix)',
    body: (b) => rewrapKnn(b, (knn, weight) => ({ knn: { ...knn, boost: weight } })),
  },
  {
    // The weight on a bool around the clause: tried as a cheaper fix and not kept. Elasticsearch
    // hands the bool's boost down to the kNN query, which reports it unweighted again: the same
    // cost as before the fix, and test/search-knn-wand.test.ts fails with it.
    label: 'kNN weight on a bool around the clause',
    body: (b) => rewrapKnn(b, (knn, weight) => ({ bool: { should: [{ knn }], boost: weight } })),
  },
  {
    // The same scores another way: the kNN clause unweighted (its maximum reported right without
    // a function_score around it), the words' clauses scaled by 1 / weight, and the weight given
    // back by the window's rescore (query_weight). Window pages only (the mix's).
    label: 'kNN unweighted, the words scaled down, the rescore scaling back',
    body: (b) => {
      let weight: number | undefined;
      const unweighted = rewrapKnn(b, (knn, w) => {
        weight = w;
        return { knn };
      });
      const query = unweighted.query as { bool?: { must?: Json[] } } | undefined;
      const relevance = query?.bool?.must?.[0] as { bool?: { should?: Json[] } } | undefined;
      const rescore = unweighted.rescore as { query?: Json } | undefined;
      if (!weight || !relevance?.bool?.should || !rescore?.query) return b;
      const isMeaning = (clause: Json) => 'knn' in clause || 'boosting' in clause;
      const words = relevance.bool.should.filter((c) => !isMeaning(c));
      const meaning = relevance.bool.should.filter(isMeaning);
      relevance.bool.should = [{ bool: { should: words, boost: 1 / weight } }, ...meaning];
      rescore.query = { ...rescore.query, query_weight: weight };
      return unweighted;
    },
  },
  { label: 'kNN k 10 / candidates 10', settings: (s) => ({ ...s, semantic: { ...s.semantic, k: 10, numCandidates: 10 } }) },
  { label: 'no synonym phrases', settings: (s) => ({ ...s, synonyms: { ...s.synonyms, weight: 0, groups: [] } }) },
  { label: 'no typo pass', settings: (s) => ({ ...s, typos: { ...s.typos, weight: 0 } }) },
  { label: 'no exact tool name', settings: (s) => ({ ...s, exactName: 0 }) },
  { label: 'no text-quality multiplier', settings: (s) => ({ ...s, stuffing: 'off' }) },
  {
    label: 'no factors (the rescore dropped)',
    body: (b) => {
      const { rescore: _rescore, ...rest } = b;
      return rest;
    },
  },
  // The fetch phase's share: no stored document read (it parses each hit's whole _source, its vector included).
  { label: 'ids only (no _source read)', body: (b) => ({ ...b, _source: false, docvalue_fields: ['id'] }) },
  { label: 'phrase_text only (no keywords.stemmed)', settings: (s) => ({ ...s, fields: { phrase_text: 1 } }) },
  // An index made before a tunable existed reads it as off: these send what mappings/listings.json ships.
  {
    label: 'synonyms and direction as mappings/listings.json ships them',
    settings: (s) => ({ ...s, synonyms: shippedRanking().synonyms, direction: shippedRanking().direction }),
  },
  { label: 'direction off', settings: (s) => ({ ...s, direction: { ...s.direction, phraseBoost: 0, opposite: 1 } }) },
  { label: 'connectors not indexed (direction.field phrase_text)', settings: (s) => ({ ...s, direction: { ...s.direction, field: 'phrase_text' } }) },
];
