import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';

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

describe('unit: catalog read requests, value by value', () => {
  const filterError = (query: Record<string, unknown>, endpoint: 'resources' | 'search' = 'resources') =>
    refusal(() => parseReadRequest(endpoint, query));

  it('limit: 1 to 100, digits only (no sign, decimals, exponent or padding past 4 digits)', () => {
    assert.equal(parseReadRequest('resources', { limit: '1' }).limit, 1);
    assert.equal(parseReadRequest('resources', { limit: '100' }).limit, 100);
    for (const bad of ['0', '101', '-1', '1.5', '1e2', ' 5', '0x10', '00005', '']) {
      const err = filterError({ limit: bad });
      assert.equal(err.code, 'invalid_filter_value', bad);
      assert.deepEqual(err.fieldErrors.map((e) => e.path), ['limit'], bad);
    }
  });

  it('minUptime: a plain decimal from 0 to 1; 0 is accepted and filters nothing out', () => {
    assert.equal(parseReadRequest('resources', { minUptime: '0.95' }).filters.minUptime, 0.95);
    assert.equal(parseReadRequest('resources', { minUptime: '.5' }).filters.minUptime, 0.5);
    assert.equal(parseReadRequest('resources', { minUptime: '1' }).filters.minUptime, 1);
    assert.equal(parseReadRequest('resources', { minUptime: '0' }).filters.minUptime, 0);
    for (const bad of ['1.01', '-0.1', '1e-1', '0x1', 'NaN', 'Infinity', '']) {
      assert.equal(filterError({ minUptime: bad }).fieldErrors[0]?.path, 'minUptime', bad);
    }
  });

  it('maxPrice: a non-negative integer of any size; decimals, signs and dollar amounts are refused', () => {
    assert.equal(parseReadRequest('resources', { maxPrice: '0' }).filters.maxPrice, '0');
    assert.equal(parseReadRequest('resources', { maxPrice: '99999999999999999999999' }).filters.maxPrice, undefined, 'above a long: excludes nothing');
    assert.equal(parseReadRequest('resources', { maxPrice: '9223372036854775806' }).filters.maxPrice, '9223372036854775806');
    for (const bad of ['1.5', '-1', '+1', '$0.01', '1e6', ' 1', '']) {
      assert.equal(filterError({ maxPrice: bad }).fieldErrors[0]?.path, 'maxPrice', bad);
    }
  });

  it('network: CAIP-2 as is, legacy x402 names mapped case-insensitively, anything else refused', () => {
    assert.equal(parseReadRequest('resources', { network: 'eip155:8453' }).filters.network, 'eip155:8453');
    assert.equal(parseReadRequest('resources', { network: 'Base' }).filters.network, 'eip155:8453');
    assert.equal(parseReadRequest('resources', { network: 'solana-devnet' }).filters.network, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    for (const bad of ['basechain', '__proto__', 'constructor', 'EIP155:1', 'e:1']) {
      assert.equal(filterError({ network: bad }).fieldErrors[0]?.path, 'network', bad);
    }
  });

  it('text filters: trimmed; blank, over 256 characters or with control characters refused', () => {
    assert.equal(parseReadRequest('resources', { capability: '  weather ' }).filters.capability, 'weather');
    assert.equal(parseReadRequest('resources', { payTo: '0xabc' }).filters.payTo, '0xabc');
    for (const bad of ['   ', 'a'.repeat(257), 'line\nbreak', 'nul\u0000', 'del\u007f']) {
      assert.equal(filterError({ asset: bad }).fieldErrors[0]?.path, 'asset', JSON.stringify(bad));
    }
    assert.equal(parseReadRequest('resources', { asset: 'a'.repeat(256) }).filters.asset, 'a'.repeat(256));
  });

  it('every parameter given twice is refused, naming it', () => {
    for (const name of ['network', 'type', 'maxPrice', 'asset', 'scheme', 'payTo', 'capability', 'minUptime', 'limit', 'cursor']) {
      const err = filterError({ [name]: ['a', 'b'] });
      assert.equal(err.code, 'invalid_filter_value', name);
      assert.deepEqual(err.fieldErrors, [{ path: name, message: 'must be given at most once' }]);
    }
    assert.equal(filterError({ q: ['a', 'b'] }, 'search').code, 'invalid_filter_value');
  });

  it('type and scheme take only the listed values, case-sensitively', () => {
    assert.equal(parseReadRequest('resources', { type: 'http', scheme: 'upto' }).filters.scheme, 'upto');
    assert.equal(filterError({ type: 'HTTP' }).fieldErrors[0]?.message, 'must be one of http, mcp');
    assert.equal(filterError({ scheme: 'stream' }).fieldErrors[0]?.message, 'must be one of exact, upto');
  });

  it('q: at most 512 characters (longer than a filter); sort and explain take their listed values only', () => {
    assert.equal(parseReadRequest('search', { q: 'x'.repeat(512) }).q?.length, 512);
    assert.equal(filterError({ q: 'x'.repeat(513) }, 'search').fieldErrors[0]?.path, 'q');
    assert.equal(filterError({ q: 'x', sort: 'relevance' }, 'search').fieldErrors[0]?.path, 'sort');
    assert.equal(filterError({ q: 'x', explain: 'true' }, 'search').fieldErrors[0]?.path, 'explain');
    assert.equal(parseReadRequest('search', { q: 'x', explain: '0' }).explain, false);
  });

  it('an unknown parameter lists every unknown one and the allowed ones, before any value is looked at', () => {
    const err = filterError({ foo: '1', bar: '2', limit: '0' });
    assert.equal(err.code, 'unknown_filter');
    assert.deepEqual(err.fieldErrors.map((e) => e.path), ['foo', 'bar']);
    assert.match(err.detail, /Allowed: network, type, maxPrice/);
    assert.equal(filterError({ q: 'x', offset: '1', sort: 'bad' }, 'search').code, 'unknown_filter');
  });

  it('a missing q is refused on search and /mcp/tools, whatever else is wrong', () => {
    assert.equal(filterError({}, 'search').code, 'missing_query');
    assert.equal(refusal(() => parseReadRequest('mcpTools', { limit: 'x' })).code, 'missing_query');
  });

  it('the cursor is kept verbatim for the codec to check', () => {
    assert.equal(parseReadRequest('resources', { cursor: 'abc.def' }).cursor, 'abc.def');
    assert.equal(parseReadRequest('resources', {}).cursor, undefined);
  });
});
