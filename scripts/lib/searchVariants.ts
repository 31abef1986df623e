/**
 * The ranked search with one part switched off at a time, for the cost breakdown of
 * bench-search-parts (docs/catalog-reads.md, "Where the cost goes"). A variant changes the
 * tunables the query builder reads, or the body it built; everything else stays the shipped query.
 */
import type { RankingSettings } from '../../src/search/rankingSettings.js';

type Json = Record<string, unknown>;

export interface SearchVariant {
  label: string;
  settings?: (settings: RankingSettings) => RankingSettings;
  body?: (body: Json) => Json;
}

const isStemmed = (field: string) => field.endsWith('.stemmed');
const isPhrases = (field: string) => field.endsWith('.phrases');

function withFields(settings: RankingSettings, keep: (field: string) => boolean): RankingSettings {
  return { ...settings, fields: Object.fromEntries(Object.entries(settings.fields).filter(([field]) => keep(field))) };
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

/** The ranked query's text relevance alone: the price, recency and health function_scores unwrapped. */
function withoutFactors(body: Json): Json {
  const query = body.query as { bool: { must: Json[] } };
  let ranked = query.bool.must[0]!;
  for (let layer = 0; layer < 3; layer++) ranked = (ranked.function_score as { query: Json }).query;
  return { ...body, query: { bool: { ...query.bool, must: [ranked] } } };
}

export const SEARCH_VARIANTS: SearchVariant[] = [
  { label: 'shipped ranking' },
  { label: 'no kNN clause', settings: (s) => ({ ...s, semantic: { ...s.semantic, weight: 0 } }) },
  {
    label: 'kNN without its filter',
    body: (b) => editAll(b, 'knn', (node) => ({ ...node, knn: { ...(node.knn as Json), filter: [] } })),
  },
  {
    label: 'kNN without its model filter (listing vectors of any model)',
    body: (b) => editAll(b, 'knn', (node) => {
      const knn = node.knn as { filter: Json[] };
      return { ...node, knn: { ...knn, filter: knn.filter.filter((f) => !('term' in f && 'embeddingModel' in (f.term as Json))) } };
    }),
  },
  {
    label: 'kNN with the request filters only (no "not removed")',
    body: (b) => editAll(b, 'knn', (node) => {
      const knn = node.knn as { filter: Json[] };
      return { ...node, knn: { ...knn, filter: knn.filter.filter((f) => !('bool' in f && 'must_not' in (f.bool as Json))) } };
    }),
  },
  { label: 'no synonym phrases', settings: (s) => ({ ...s, synonyms: { ...s.synonyms, weight: 0, groups: [] } }) },
  { label: 'no typo pass', settings: (s) => ({ ...s, typos: { ...s.typos, weight: 0 } }) },
  { label: 'no exact tool name', settings: (s) => ({ ...s, exactName: 0 }) },
  { label: 'no text-quality multiplier', settings: (s) => ({ ...s, stuffing: 'off' }) },
  { label: 'no price/recency/health factors', body: withoutFactors },
  {
    label: 'best_fields instead of cross_fields',
    body: (b) => editAll(b, 'multi_match', (node) => {
      const mm = node.multi_match as Json;
      return mm.type === 'cross_fields' ? { ...node, multi_match: { ...mm, type: 'best_fields' } } : node;
    }),
  },
  { label: 'exact-word fields only (no .stemmed, .phrases)', settings: (s) => withFields(s, (f) => !isStemmed(f) && !isPhrases(f)) },
  { label: 'stemmed fields only', settings: (s) => withFields(s, (f) => isStemmed(f)) },
  { label: 'no title word pairs (.phrases)', settings: (s) => withFields(s, (f) => !isPhrases(f)) },
  { label: 'no keywords fields', settings: (s) => withFields(s, (f) => !f.startsWith('keywords')) },
];
