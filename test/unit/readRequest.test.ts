import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { parseReadRequest } from '../../src/search/readRequest.js';

function refusal(run: () => unknown): InvalidInput {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidInput) return err;
    throw err;
  }
  assert.fail('expected InvalidInput');
}

describe('unit: catalog read requests', () => {
  it('defaults: newest-first browse, rank for search, 20 per page', () => {
    assert.deepEqual(parseReadRequest('resources', {}), { kind: 'resources', explain: false, limit: 20, filters: {} });
    const search = parseReadRequest('search', { q: '  weather ', explain: '1', limit: '5' });
    assert.equal(search.q, 'weather');
    assert.equal(search.sort, 'rank');
    assert.equal(search.explain, true);
    assert.equal(search.limit, 5);
  });

  it('checks in order: unknown parameter, then missing q, then every bad value at once', () => {
    assert.equal(refusal(() => parseReadRequest('search', { offset: '2' })).code, 'unknown_filter');
    assert.equal(refusal(() => parseReadRequest('resources', { q: 'x' })).code, 'unknown_filter');
    assert.equal(refusal(() => parseReadRequest('search', { q: ' ', limit: '0' })).code, 'missing_query');
    const bad = refusal(() => parseReadRequest('search', { q: 'x', limit: '0', type: 'ftp', maxPrice: '-1', sort: ['rank', 'price'] }));
    assert.equal(bad.code, 'invalid_filter_value');
    assert.deepEqual(bad.fieldErrors.map((e) => e.path).sort(), ['limit', 'maxPrice', 'sort', 'type']);
  });

  it('networks are mapped to CAIP-2; a price ceiling at or above 2^63-1 excludes nothing', () => {
    assert.equal(parseReadRequest('resources', { network: 'base-sepolia' }).filters.network, 'eip155:84532');
    assert.equal(parseReadRequest('resources', { maxPrice: '9223372036854775807' }).filters.maxPrice, undefined);
    assert.equal(parseReadRequest('resources', { maxPrice: '9007199254740993' }).filters.maxPrice, '9007199254740993');
  });

  it('/mcp/tools is search restricted to MCP tools', () => {
    assert.equal(parseReadRequest('mcpTools', { q: 'x' }).filters.type, 'mcp');
    assert.equal(refusal(() => parseReadRequest('mcpTools', { q: 'x', type: 'http' })).code, 'invalid_filter_value');
  });
});
