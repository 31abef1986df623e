import assert from 'node:assert/strict';
import { BAZAAR_MAX_OFFSET, parseBazaarList, parseBazaarSearch } from '../../src/bazaar/bazaarRequest.js';
import { InvalidInput } from '../../src/core/errors.js';
import { debugFromNamedScores, MissingFactorError } from '../../src/search/explain.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidInput) return { code: err.code, paths: err.fieldErrors.map((e) => e.path) };
    throw err;
  }
  return assert.fail('expected InvalidInput');
};

describe('unit: the x402 Bazaar surface\'s queries', () => {
  it('list: newest first with the total, offset paging, the native filters', () => {
    const read = parseBazaarList({ type: 'http', network: 'base-sepolia', offset: '40', limit: '20' });
    assert.equal(read.request.kind, 'resources');
    assert.equal(read.request.countTotal, true);
    assert.equal(read.request.offset, 40);
    assert.equal(read.request.filters.network, 'eip155:84532');
    assert.equal(read.offset, 40);
  });

  it('limit is advisory: above 100 it is lowered, not refused; 0 and garbage are refused', () => {
    assert.equal(parseBazaarList({ limit: '5000' }).request.limit, 100);
    assert.deepEqual(refusal(() => parseBazaarList({ limit: '0' })), { code: 'invalid_filter_value', paths: ['limit'] });
    assert.deepEqual(refusal(() => parseBazaarList({ limit: 'ten' })), { code: 'invalid_filter_value', paths: ['limit'] });
  });

  it('offset stays inside Elasticsearch\'s result window; deeper pages are the native cursors\' job', () => {
    assert.equal(parseBazaarList({ offset: String(BAZAAR_MAX_OFFSET) }).offset, BAZAAR_MAX_OFFSET);
    assert.deepEqual(refusal(() => parseBazaarList({ offset: String(BAZAAR_MAX_OFFSET + 1) })).paths, ['offset']);
    assert.deepEqual(refusal(() => parseBazaarSearch({ query: 'x', offset: '1' })), { code: 'unknown_filter', paths: ['offset'] });
  });

  it('search: `query` is required and errors name it, not the native q', () => {
    assert.equal(parseBazaarSearch({ query: ' weather ' }).request.q, 'weather');
    assert.deepEqual(refusal(() => parseBazaarSearch({})), { code: 'missing_query', paths: ['query'] });
    assert.deepEqual(refusal(() => parseBazaarSearch({ query: 'x'.repeat(513) })), { code: 'invalid_filter_value', paths: ['query'] });
    assert.deepEqual(refusal(() => parseBazaarSearch({ q: 'x' })).code, 'unknown_filter');
  });

  it('every bad value in one answer, Bazaar parameters and native filters alike', () => {
    assert.deepEqual(refusal(() => parseBazaarList({ limit: '0', offset: '-1', scheme: 'stream', extensions: ['a', 'b'] })).paths.sort(), ['extensions', 'limit', 'offset', 'scheme']);
  });

  it('extensions: only `bazaar` is carried by cataloged resources; another one matches nothing, an empty one is refused', () => {
    assert.equal(parseBazaarList({ extensions: 'bazaar' }).matchesAny, true);
    assert.equal(parseBazaarList({}).matchesAny, true);
    assert.equal(parseBazaarList({ extensions: 'payment-identifier' }).matchesAny, false);
    assert.deepEqual(refusal(() => parseBazaarList({ extensions: ' ' })).paths, ['extensions']);
  });
});

describe('unit: explain=1 factors', () => {
  const named = { priceBoost: 0.9, recencyBoost: 0.95, healthBoost: 1, popularityBoost: 1.05 };
  const others = 0.9 * 0.95 * 1 * 1.05;

  it('reads each factor from Elasticsearch\'s named scores; relevance is the score with them divided out (text quality in it)', () => {
    const debug = debugFromNamedScores(4 * others, named);
    assert.deepEqual({ ...debug, relevance: undefined }, { score: 4 * others, relevance: undefined, priceBoost: 0.9, recencyBoost: 0.95, healthBoost: 1, popularityBoost: 1.05 });
    assert.ok(Math.abs(debug.relevance - 4) < 1e-12);
    assert.ok(Math.abs(debug.relevance * debug.priceBoost * debug.recencyBoost * debug.healthBoost * debug.popularityBoost - debug.score) < 1e-12);
  });

  it('a missing factor is an error, never a made-up 1', () => {
    assert.throws(() => debugFromNamedScores(1, { ...named, healthBoost: undefined } as never), MissingFactorError);
    assert.throws(() => debugFromNamedScores(1, { ...named, popularityBoost: undefined } as never), MissingFactorError);
    assert.throws(() => debugFromNamedScores(1, ['priceBoost', 'recencyBoost', 'healthBoost', 'popularityBoost']), MissingFactorError, 'names without scores');
    assert.throws(() => debugFromNamedScores(1, undefined), MissingFactorError);
    assert.throws(() => debugFromNamedScores(1, { ...named, priceBoost: 0 }), MissingFactorError, 'a factor of 0 leaves relevance unknown');
  });
});
