import assert from 'node:assert/strict';
import { assertValidListingInput, checkListingInput, InvalidListingError, LISTING_BOUNDS, validateListingInput } from '../../src/catalog/validation.js';
import { httpListingId } from '../../src/catalog/identity.js';
import { httpInput, mcpInput } from '../support/listings.js';

const paths = (input: unknown) => validateListingInput(input).map((e) => e.path);
const messageAt = (input: unknown, path: string) => validateListingInput(input).find((e) => e.path === path)?.message;
/** An object nested `depth` levels (the outer object is level 1). */
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
};

describe('unit: listing validation', () => {
  it('the fixtures are valid listings', () => {
    assert.deepEqual(validateListingInput(httpInput()), []);
    assert.deepEqual(validateListingInput(mcpInput()), []);
  });

  it('not an object, or no known type: one clear error', () => {
    for (const bad of [null, [], 'listing', 42]) assert.deepEqual(validateListingInput(bad), [{ path: '(root)', message: 'must be a JSON object' }]);
    assert.deepEqual(validateListingInput({ resource: 'x' }), [{ path: 'type', message: 'is required' }]);
    assert.deepEqual(validateListingInput({ type: 'grpc' }), [{ path: 'type', message: 'must be one of ["http","mcp"]' }]);
  });

  it('reports every failing field at once, one entry per field', () => {
    const errors = validateListingInput({ type: 'mcp', resource: 'https://wrong.example', name: 'bad name!', description: 1, payment: {} });
    const found = errors.map((e) => e.path).sort();
    assert.deepEqual(found, [...new Set(found)], 'no field twice');
    for (const path of ['name', 'description', 'inputSchema', 'payment.scheme', 'payment.amount', 'resource']) assert.ok(found.includes(path), `${path} in ${found}`);
  });

  it('amounts: base-10 integer strings up to the largest long, no sign, decimals, exponent or leading zero', () => {
    const withAmount = (amount: unknown) => httpInput({ payment: { ...httpInput().payment, amount: amount as string } });
    assert.deepEqual(paths(withAmount('0')), []);
    assert.deepEqual(paths(withAmount('9223372036854775807')), []);
    assert.deepEqual(paths(withAmount('9223372036854775808')), ['payment.amount']);
    for (const bad of ['-1', '1.5', '1e6', '007', '', ' 1', 1000]) assert.deepEqual(paths(withAmount(bad)), ['payment.amount'], String(bad));
    assert.match(messageAt(withAmount('1.5'), 'payment.amount')!, /smallest unit/);
  });

  it('networks: CAIP-2 or a known x402 name', () => {
    const withNetwork = (network: string) => httpInput({ payment: { ...httpInput().payment, network } });
    assert.deepEqual(paths(withNetwork('base-sepolia')), []);
    assert.deepEqual(paths(withNetwork('eip155:1')), []);
    assert.deepEqual(paths(withNetwork('mainnet')), ['payment.network']);
  });

  it('unknown fields are refused by name, not dropped', () => {
    assert.deepEqual(validateListingInput({ ...httpInput(), price: '$1' }), [{ path: 'price', message: 'is not an accepted field' }]);
    assert.deepEqual(paths({ ...mcpInput(), payment: { ...mcpInput().payment, currency: 'usd' } }), ['payment.currency']);
  });

  it('HTTP: the method is one of the listed ones (any case); OPTIONS is not a paid method', () => {
    assert.deepEqual(paths(httpInput({ method: 'post' })), []);
    assert.deepEqual(paths(httpInput({ method: 'OPTIONS' })), ['method']);
  });

  it('HTTP: the resource is an absolute http(s) URL without credentials', () => {
    assert.deepEqual(paths(httpInput({ resource: 'ftp://files.example/x' })), ['resource']);
    assert.deepEqual(paths(httpInput({ resource: '/relative' })), ['resource']);
    assert.equal(messageAt(httpInput({ resource: 'https://user:pw@a.example/' }), 'resource'), 'must not carry credentials (user@)');
  });

  it('MCP: the resource is an mcp:// URI; the tool name uses the characters clients accept', () => {
    assert.deepEqual(paths(mcpInput({ resource: 'https://tools.example/translate_text' })), ['resource']);
    assert.deepEqual(paths(mcpInput({ resource: 'mcp://victim.example@tools.example/t' })), ['resource']);
    assert.deepEqual(paths(mcpInput({ name: 'translate text' })), ['name']);
    assert.deepEqual(paths(mcpInput({ name: 'ns:tool.v2-beta', resource: 'mcp://tools.example' })), []);
  });

  it('MCP tool schemas: an object schema that is itself a valid JSON Schema', () => {
    assert.deepEqual(paths(mcpInput({ inputSchema: { type: 'string' } })), ['inputSchema.type']);
    assert.deepEqual(paths(mcpInput({ inputSchema: { type: 'object', properties: [] } })), ['inputSchema.properties']);
    assert.deepEqual(paths(mcpInput({ inputSchema: { type: 'object', required: 'text' } })), ['inputSchema.required']);
    assert.deepEqual(paths(mcpInput({ inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } })), ['inputSchema']);
    assert.deepEqual(paths(mcpInput({ inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } })), []);
  });

  it('nesting and size bounds keep every accepted listing indexable', () => {
    assert.deepEqual(validateListingInput(mcpInput({ inputSchema: { type: 'object', properties: { deep: nested(40) } } })), [
      { path: 'inputSchema', message: `must not nest objects and arrays deeper than ${LISTING_BOUNDS.schemaDepth} levels` },
    ]);
    const accept = { ...httpInput().payment, extra: nested(9) };
    assert.deepEqual(paths(httpInput({ accepts: [accept] })), ['accepts.0.extra']);
    const big = httpInput({ describe: { description: 'x'.repeat(4000), inputs: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`in${i}`, 'y'.repeat(200)])) } });
    assert.deepEqual(paths({ ...big, accepts: Array.from({ length: 16 }, () => ({ ...httpInput().payment, extra: { blob: 'z'.repeat(3000) } })) }), ['(root)']);
  });

  it('a canonical resource over 8 KiB once percent-encoded is refused', () => {
    const resource = `https://a.example/${'ü'.repeat(1500)}`;
    assert.match(messageAt(httpInput({ resource }), 'resource')!, /8192 bytes once canonicalized/);
  });

  it('imported signals: null means never settled; a date must parse within 1970-9999; the median is an amount', () => {
    assert.deepEqual(paths(httpInput({ signals: { lastSettled: null, settleCount7d: null, rejectionRate7d: null } })), []);
    assert.deepEqual(paths(httpInput({ signals: { lastSettled: '2026-01-01T00:00:60Z' } })), ['signals.lastSettled']);
    assert.deepEqual(paths(httpInput({ signals: { rejectionRate7d: 1.5 } })), ['signals.rejectionRate7d']);
    assert.deepEqual(paths(httpInput({ signals: { medianSettledAmount7d: '99999999999999999999' } })), ['signals.medianSettledAmount7d']);
  });

  it('a checked listing carries the identity the check computed; an invalid one throws with every field', () => {
    const checked = checkListingInput(httpInput({ resource: 'HTTPS://API.Weather.example/forecast?city=paris' }));
    assert.ok(checked.ok);
    assert.equal(checked.listing.identity.resource, 'https://api.weather.example/forecast');
    assert.equal(checked.listing.identity.id, httpListingId('https://api.weather.example/forecast'));
    assert.throws(() => assertValidListingInput({ type: 'http' }), (err: unknown) =>
      err instanceof InvalidListingError && err.errors.map((e) => e.path).sort().join() === 'payment,resource');
  });
});
