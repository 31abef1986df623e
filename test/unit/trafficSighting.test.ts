import assert from 'node:assert/strict';
import { httpListingId, mcpListingId } from '../../src/catalog/identity.js';
import { validateListingInput } from '../../src/catalog/validation.js';
import { readFacilitatorRequest } from '../../src/facilitator/request.js';
import { sightingOf } from '../../src/facilitator/trafficSighting.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const requirements = { scheme: 'exact', network: 'eip155:84532', asset: USDC, amount: '1000', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };
const v2 = (resource: Record<string, unknown> | undefined, extensions?: Record<string, unknown>, pr: Record<string, unknown> = {}) =>
  readFacilitatorRequest({
    x402Version: 2,
    paymentPayload: { x402Version: 2, ...(resource ? { resource } : {}), accepted: { ...requirements, ...pr }, payload: {}, ...(extensions ? { extensions } : {}) },
    paymentRequirements: { ...requirements, ...pr },
  });

describe('unit: what a payment says about the resource behind it', () => {
  it('v2: the resource info becomes an HTTP listing, keyed like the catalog keys it, valid for the catalog', () => {
    const sighting = sightingOf(v2({ url: 'https://API.seller.example/weather?city=paris', description: 'Weather by city', serviceName: 'Weather', tags: ['wx', '', 'x'.repeat(65)] }))!;
    assert.equal(sighting.listingId, httpListingId('https://api.seller.example/weather'));
    assert.deepEqual(sighting.input.type === 'http' && sighting.input.describe, { title: 'Weather', description: 'Weather by city', tags: ['wx'] });
    assert.equal(sighting.acceptKey, 'exact eip155:84532');
    assert.deepEqual(sighting.accept.extra, { name: 'USDC', version: '2' });
    assert.equal('extra' in sighting.input.payment, false, 'scheme parameters stay on the accepts entry');
    assert.deepEqual(validateListingInput(sighting.input), []);
  });

  it('the bazaar extension: method, route template and typed inputs', () => {
    const bazaar = {
      routeTemplate: '/users/:id',
      info: { input: { method: 'post', queryParams: { verbose: true }, body: { name: 'x', tags: [] } } },
      schema: { properties: { input: { properties: { body: { properties: { name: { type: 'string' } } } } } } },
    };
    const sighting = sightingOf(v2({ url: 'https://a.example/users/42' }, { bazaar }))!;
    assert.equal(sighting.listingId, httpListingId('https://a.example/users/42', 'POST', '/users/:id'));
    assert.ok(sighting.input.type === 'http');
    assert.equal(sighting.input.method, 'POST');
    assert.deepEqual(sighting.input.describe?.inputs, { verbose: 'boolean', name: 'string', tags: 'array' });
  });

  it('an MCP tool call: the tool listing with its input schema, keyed by server and tool name', () => {
    const bazaar = { info: { input: { type: 'mcp', toolName: 'get_weather', description: 'Weather now', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } } } };
    const sighting = sightingOf(v2({ url: 'https://tools.example/mcp' }, { bazaar }))!;
    assert.equal(sighting.input.resource, 'mcp://tools.example/get_weather');
    assert.equal(sighting.listingId, mcpListingId('mcp://tools.example/get_weather', 'get_weather'));
    assert.deepEqual(validateListingInput(sighting.input), []);
  });

  it('v1: the requirements carry the resource; the legacy network is stored as CAIP-2', () => {
    const raw = readFacilitatorRequest({
      x402Version: 1,
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} },
      paymentRequirements: { scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '2500', asset: USDC, payTo: PAY_TO, resource: 'https://a.example/v1', description: 'Old style', outputSchema: { input: { method: 'GET', queryParams: { q: 'text' } } } },
    });
    const sighting = sightingOf(raw)!;
    assert.equal(sighting.input.payment.network, 'eip155:84532');
    assert.equal(sighting.input.payment.amount, '2500');
    assert.deepEqual(sighting.input.type === 'http' && sighting.input.describe, { description: 'Old style', inputs: { q: 'string' } });
  });

  it('nothing to catalog: no resource, an opted-out seller, or a resource that cannot be keyed (never an error for the payer)', () => {
    assert.equal(sightingOf(v2(undefined)), undefined);
    assert.equal(sightingOf(v2({ url: 'https://a.example/x' }, { bazaar: { info: { input: { discoverable: false } } } })), undefined);
    assert.equal(sightingOf(v2({ url: 'not a url' })), undefined);
  });
});
