import assert from 'node:assert/strict';
import { fuseNeighbours, nearestSearchBody, OPPOSITE_DIRECTION, type Neighbour } from '../../src/search/semanticFusion.js';
import { textQuery } from '../../src/search/textQuery.js';
import { shippedRanking, validateRanking, type RankingSettings, type SemanticFusion } from '../../src/search/rankingSettings.js';
import { loadIndexDefinition } from '../../src/store/elasticsearch/listingIndex.js';

type Json = Record<string, unknown>;
/** Elasticsearch's score of a cosine kNN match. */
const scoreOf = (cosine: number) => (1 + cosine) / 2;

describe('unit: fusion of the semantic neighbours with the words (semantic.fusion)', () => {
  const shipped = shippedRanking();
  const as = (fusion: SemanticFusion, change: Partial<RankingSettings['semantic']> = {}): RankingSettings => ({
    ...shipped,
    semantic: { ...shipped.semantic, weight: 40, minSimilarity: 0.35, rankConstant: 60, ...change, fusion },
  });
  const near = (id: string, cosine: number, opposite = false): Neighbour => ({ id, score: scoreOf(cosine) * (opposite ? shipped.direction.opposite : 1), opposite });

  it('normalised: the nearest gets the weight, a neighbour at minSimilarity nothing, in between by distance', () => {
    const fused = fuseNeighbours([near('b', 0.5), near('a', 0.8), near('c', 0.35)], as('normalised'));
    assert.deepEqual(fused.map((n) => n.id), ['a', 'b'], 'ordered by meaning; the one at the floor adds nothing and is left out');
    assert.equal(fused[0]!.boost, 40);
    assert.ok(Math.abs(fused[1]!.boost - (40 * (0.5 - 0.35)) / (0.8 - 0.35)) < 1e-3);
  });

  it('normalised is per query: a query whose nearest is far still gives its nearest the whole weight', () => {
    const close = fuseNeighbours([near('a', 0.9), near('b', 0.6)], as('normalised'));
    const far = fuseNeighbours([near('a', 0.45), near('b', 0.4)], as('normalised'));
    assert.equal(close[0]!.boost, far[0]!.boost);
  });

  it('rrf: by rank only, the nearest gets the weight, then (c + 1) / (c + rank)', () => {
    const fused = fuseNeighbours([near('a', 0.9), near('b', 0.89), near('c', 0.36)], as('rrf', { rankConstant: 10 }));
    assert.deepEqual(fused.map((n) => n.boost), [40, Number(((40 * 11) / 12).toPrecision(6)), Number(((40 * 11) / 13).toPrecision(6))]);
  });

  it('a neighbour stating the opposite direction is ranked by meaning and keeps direction.opposite of its share', () => {
    for (const fusion of ['normalised', 'rrf'] as const) {
      const fused = fuseNeighbours([near('same', 0.7), near('reversed', 0.8, true)], as(fusion));
      const reversed = fused.find((n) => n.id === 'reversed')!;
      assert.equal(reversed.boost, Number((40 * shipped.direction.opposite).toPrecision(6)), `${fusion}: nearest by meaning, kept ${shipped.direction.opposite}`);
    }
  });

  it('no neighbour: nothing to add; one neighbour: the weight', () => {
    assert.deepEqual(fuseNeighbours([], as('normalised')), []);
    assert.deepEqual(fuseNeighbours([near('only', 0.4)], as('normalised')), [{ id: 'only', boost: 40 }]);
  });

  it('the fused neighbours replace the kNN clause in text relevance: one constant per listing id', () => {
    const query = textQuery('weather', as('normalised'), { neighbours: [{ id: 'x1', boost: 40 }, { id: 'x2', boost: 12.5 }] });
    const should = (query.bool as { should: Json[] }).should;
    assert.ok(!JSON.stringify(should).includes('"knn"'));
    assert.deepEqual(should.slice(-2), [
      { constant_score: { filter: { ids: { values: ['x1'] } }, boost: 40 } },
      { constant_score: { filter: { ids: { values: ['x2'] } }, boost: 12.5 } },
    ]);
  });

  it('the kNN search of its own: k hits with the read\'s filters, the opposite direction demoted under a name', () => {
    const body = nearestSearchBody(as('rrf'), { vector: [0.1, 0.2], filter: [{ term: { type: 'mcp' } }], postFilter: [], widen: 1 }, [{ from: 'speech', to: 'text', phrase: 'speech to text' }]);
    assert.equal(body.size, shipped.semantic.k);
    assert.equal(body._source, false);
    const boosting = (body.query as { boosting: { positive: { knn: Json }; negative: { bool: Json }; negative_boost: number } }).boosting;
    assert.deepEqual(boosting.positive.knn.filter, [{ term: { type: 'mcp' } }]);
    assert.equal(boosting.positive.knn.boost, undefined, 'raw (1 + cosine) / 2: the scale is the service\'s');
    assert.equal(boosting.negative.bool._name, OPPOSITE_DIRECTION);
    assert.equal(boosting.negative_boost, shipped.direction.opposite);
  });

  it('semantic.fusion is a validated tunable; indexes made before it read weighted', () => {
    const raw = structuredClone(loadIndexDefinition().mappings._meta?.ranking) as Record<string, Record<string, unknown>>;
    delete raw.semantic!.fusion;
    delete raw.semantic!.rankConstant;
    assert.equal(validateRanking(raw, {}).settings?.semantic.fusion, 'weighted');
    raw.semantic!.fusion = 'linear';
    assert.deepEqual(validateRanking(raw, {}).problems, ['semantic.fusion="linear": must be one of weighted, normalised, rrf']);
    raw.semantic!.fusion = 'rrf';
    raw.semantic!.rankConstant = -1;
    assert.equal(validateRanking(raw, {}).problems.length, 1);
  });
});
