import assert from 'node:assert/strict';
import { buildSearchBody, filterClauses, searchParamsFor, sortFor } from '../../src/search/queryBuilder.js';
import { FACTOR_NAMES } from '../../src/search/rankingFactors.js';
import { shippedRanking } from '../../src/search/rankingSettings.js';
import { parseReadRequest } from '../../src/search/readRequest.js';

describe('unit: Elasticsearch query building', () => {
  const settings = shippedRanking();

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
    const body = buildSearchBody(parseReadRequest('resources', { limit: '7' }), settings, { now: 0, searchAfter: [5, 'lst_a'] });
    assert.equal(body.size, 8);
    assert.deepEqual(body.search_after, [5, 'lst_a']);
    assert.equal(body.post_filter, undefined);
  });

  it('explain=1 adds the named factor probes and asks for named scores; plain search does not', () => {
    const plain = parseReadRequest('search', { q: 'weather' });
    const explained = parseReadRequest('search', { q: 'weather', explain: '1' });
    assert.equal(buildSearchBody(plain, settings, { now: 0 }).post_filter, undefined);
    const probes = JSON.stringify(buildSearchBody(explained, settings, { now: 0 }).post_filter);
    assert.ok(probes.includes(FACTOR_NAMES.price) && probes.includes(FACTOR_NAMES.recency));
    assert.equal(searchParamsFor(plain).include_named_queries_score, undefined);
    assert.equal(searchParamsFor(explained).include_named_queries_score, true);
  });

  it('a rank window page: text relevance rescored with the factors, read by position, without a sort', () => {
    const request = parseReadRequest('search', { q: 'weather', type: 'mcp', limit: '5' });
    const body = buildSearchBody(request, settings, { now: 0, window: { size: 300, from: 40, take: 6 } });
    assert.equal(body.sort, undefined, 'Elasticsearch refuses a sort with a rescore');
    assert.equal(body.from, 40);
    assert.equal(body.size, 6);
    const rescore = body.rescore as { window_size: number; query: { score_mode: string; rescore_query: Record<string, unknown> } };
    assert.equal(rescore.window_size, 300);
    assert.equal(rescore.query.score_mode, 'multiply');
    assert.ok(JSON.stringify(rescore.query.rescore_query).includes('signals.lastSettled'), 'the recency factor is in the rescore');
    assert.ok(!JSON.stringify(body.query).includes('function_score'), 'no factor in the text query: Lucene can skip through it');
    assert.deepEqual((body.query as { bool: { filter: unknown[] } }).bool.filter, [{ term: { type: 'mcp' } }]);
  });

  it('past the window: the exact ranking of the other matches, without the window\'s listings', () => {
    const request = parseReadRequest('search', { q: 'weather' });
    const body = buildSearchBody(request, settings, { now: 0, excludeIds: ['lst_a', 'lst_b'], searchAfter: [1, 'lst_c'] });
    assert.equal(body.rescore, undefined);
    assert.deepEqual(body.sort, sortFor(request));
    assert.deepEqual(body.search_after, [1, 'lst_c']);
    const mustNot = (body.query as { bool: { must_not: unknown[] } }).bool.must_not;
    assert.deepEqual(mustNot[mustNot.length - 1], { terms: { id: ['lst_a', 'lst_b'] } });
  });
});
