import assert from 'node:assert/strict';
import { buildSearchBody, FACTOR_NAMES, filterClauses, searchParamsFor, sortFor } from '../../src/search/queryBuilder.js';
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
});
