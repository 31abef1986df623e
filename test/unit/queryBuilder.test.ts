import assert from 'node:assert/strict';
import { exactBody, pageBody, windowBody, windowIdsBody } from '../../src/search/queryBuilder.js';
import { filterClauses, sortFor } from '../../src/search/readClauses.js';
import { planRead, type PlanContext } from '../../src/search/readPlan.js';
import { FACTOR_NAMES } from '../../src/search/rankingFactors.js';
import { shippedRanking } from '../../src/search/rankingSettings.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';

type Json = Record<string, unknown>;

describe('unit: Elasticsearch query building', () => {
  const settings = shippedRanking();
  const plan = (query: Record<string, string>, context: Partial<PlanContext> = {}) =>
    planRead(parseReadRequest('q' in query ? 'search' : 'resources', query), { settings, tunables: 0, now: 0, ...context });

  it('every read excludes removed listings and applies each filter as a term or range', () => {
    const { filter, must_not } = filterClauses({ type: 'mcp', maxPrice: '9007199254740993', capability: 'weather' });
    assert.deepEqual(must_not, [{ term: { removed: true } }]);
    assert.deepEqual(filter[0], { term: { type: 'mcp' } });
    assert.deepEqual(filter[1], { range: { 'payment.amount': { lte: '9007199254740993' } } }, 'the ceiling stays a string: exact above 2^53');
    assert.equal(filter.length, 3);
  });

  it('orders end with the listing id, so pages are stable', () => {
    for (const query of [{}, { q: 'x' }, { q: 'x', sort: 'price' }, { q: 'x', sort: 'recent' }]) {
      const sort = sortFor(parseReadRequest('q' in query ? 'search' : 'resources', query));
      assert.deepEqual(sort[sort.length - 1], { id: { order: 'asc' } });
    }
  });

  it('one extra hit tells whether there is a next page; search_after continues a page', () => {
    const body = pageBody(plan({ limit: '7' }, { cursor: { searchAfter: [5, 'lst_a'] } }));
    assert.equal(body.size, 8);
    assert.deepEqual(body.search_after, [5, 'lst_a']);
    assert.equal(body.post_filter, undefined);
    assert.equal(body.rescore, undefined);
  });

  it('explain=1 adds the named factor probes and asks for named scores; plain search does not', () => {
    const plain = plan({ q: 'weather' });
    const explained = plan({ q: 'weather', explain: '1' });
    assert.equal(pageBody(plain).post_filter, undefined);
    const probes = JSON.stringify(pageBody(explained).post_filter);
    assert.ok(probes.includes(FACTOR_NAMES.price) && probes.includes(FACTOR_NAMES.recency));
    assert.equal(plain.params.include_named_queries_score, undefined);
    assert.equal(explained.params.include_named_queries_score, true);
    assert.equal(pageBody(plan({ q: 'weather', explain: '1', sort: 'recent' })).track_scores, true, 'sort=recent still reports scores');
  });

  it('a rank window page: text relevance rescored with the factors, read by position, without a sort', () => {
    const planned = plan({ q: 'weather', type: 'mcp', limit: '5' });
    const body = windowBody(planned, planned.text!.relevance!, 40, 6);
    assert.equal(body.sort, undefined, 'Elasticsearch refuses a sort with a rescore');
    assert.equal(body.from, 40);
    assert.equal(body.size, 6);
    const rescore = body.rescore as { window_size: number; query: { score_mode: string; rescore_query: Json } };
    assert.equal(rescore.window_size, 300);
    assert.equal(rescore.query.score_mode, 'multiply');
    assert.ok(JSON.stringify(rescore.query.rescore_query).includes('signals.lastSettled'), 'the recency factor is in the rescore');
    assert.ok(!JSON.stringify(body.query).includes('function_score'), 'no factor in the text query: Lucene can skip through it');
    assert.deepEqual((body.query as { bool: { filter: unknown[] } }).bool.filter, [{ term: { type: 'mcp' } }]);
  });

  it('past the window: the exact ranking of the other matches, without the window\'s listings', () => {
    const planned = plan({ q: 'weather' }, { cursor: { rank: { size: 300, tail: true }, searchAfter: [1, 'lst_c'] } });
    assert.equal(planned.start.at, 'tail');
    const body = exactBody(planned, planned.text!.relevance!, { excludeIds: ['lst_a', 'lst_b'], limit: 4 });
    assert.equal(body.rescore, undefined);
    assert.equal(body.size, 5);
    assert.deepEqual(body.sort, sortFor(planned.request));
    assert.deepEqual(body.search_after, [1, 'lst_c']);
    const mustNot = (body.query as { bool: { must_not: unknown[] } }).bool.must_not;
    assert.deepEqual(mustNot[mustNot.length - 1], { terms: { id: ['lst_a', 'lst_b'] } });
  });

  it('the window\'s ids: the window query, doc values only, no explain or total', () => {
    const planned = plan({ q: 'weather', explain: '1' }, { cursor: { rank: { size: 50, tail: true }, searchAfter: [1, 'lst_c'] } });
    const body = windowIdsBody(planned, planned.text!.relevance!);
    assert.equal(body.size, 50);
    assert.equal(body._source, false);
    assert.deepEqual(body.docvalue_fields, ['id']);
    assert.equal(body.post_filter, undefined);
    assert.equal(body.search_after, undefined);
    assert.equal((body.rescore as { window_size: number }).window_size, 50);
  });
});
