/**
 * x402/bazaarMetadata.ts: one reading of serviceName, tags, iconUrl, routeTemplate and the MCP tool
 * key, and the two payment paths that use it (a probed 402 and a /verify or /settle payload) agree.
 */
import assert from 'node:assert/strict';
import { bazaarMetadataOf, cleanIconUrl } from '../../src/x402/bazaarMetadata.js';
import { parseChallenge } from '../../src/probe/challenge.js';
import { sightingOf } from '../../src/facilitator/trafficSighting.js';

const accept = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '1000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x4444444444444444444444444444444444444444',
  maxTimeoutSeconds: 60,
};

const resource = {
  url: 'https://tides.example/tides/dover',
  description: 'Tide times',
  serviceName: 'Harbour Tides',
  tags: ['ocean', 'tides'],
  iconUrl: 'https://Icons.Tides.example/logo.png',
};

describe('Bazaar metadata', () => {
  describe('cleanIconUrl', () => {
    it('keeps an absolute http(s) URL in its parsed form', () => {
      assert.equal(cleanIconUrl('  https://Icons.Example.com/a b.png '), 'https://icons.example.com/a%20b.png');
      assert.equal(cleanIconUrl('http://icons.example.com/a.png'), 'http://icons.example.com/a.png');
    });

    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://icons.example.com/a.png', '/relative.png', 'https://user:pw@icons.example.com/a.png', 'http://127.0.0.1/a.png', 'http://localhost/a.png', 'https://[::1]/a.png', 42, '']) {
      it(`drops ${JSON.stringify(bad)}`, () => assert.equal(cleanIconUrl(bad), undefined));
    }
  });

  it('reads serviceName, tags and iconUrl by the x402 rules, dropping what they refuse', () => {
    assert.deepEqual(bazaarMetadataOf(resource, undefined), {
      serviceName: 'Harbour Tides',
      tags: ['ocean', 'tides'],
      iconUrl: 'https://icons.tides.example/logo.png',
    });
    const refused = bazaarMetadataOf({ serviceName: 'x'.repeat(33), tags: ['ok', 7, 'y'.repeat(33)], iconUrl: 'javascript:alert(1)' }, undefined);
    assert.deepEqual(refused, { tags: ['ok'] });
  });

  it('accepts the MCP tool key as toolName and as tool', () => {
    assert.equal(bazaarMetadataOf({}, { info: { input: { type: 'mcp', toolName: 'tide_times' } } }).toolName, 'tide_times');
    assert.equal(bazaarMetadataOf({}, { info: { input: { type: 'mcp', tool: 'tide_times' } } }).toolName, 'tide_times');
    assert.equal(bazaarMetadataOf({}, { info: { input: { type: 'http', tool: 'x' } } }).toolName, undefined);
  });

  it('tells a path template from a routeTemplate that is not one', () => {
    assert.equal(bazaarMetadataOf({}, { routeTemplate: '/tides/:port' }).routeTemplate, '/tides/:port');
    const bad = bazaarMetadataOf({}, { routeTemplate: '/tides/../admin' });
    assert.equal(bad.routeTemplate, undefined);
    assert.equal(bad.invalidRouteTemplate, '/tides/../admin');
  });

  it('a probed 402 and a settlement payload of the same resource give the same title, tags, icon and template', () => {
    const bazaar = { routeTemplate: '/tides/:port', info: { input: { type: 'http', method: 'GET', queryParams: {} } } };
    const challenge = parseChallenge({ x402Version: 2, resource, accepts: [accept], extensions: { bazaar } });
    const sighting = sightingOf({
      x402Version: 2,
      paymentPayload: { x402Version: 2, resource, accepted: accept, payload: {}, extensions: { bazaar } },
      paymentRequirements: accept,
    });
    assert.ok(sighting && sighting.input.type === 'http');
    const fromSettlement = sighting.input.describe!;
    assert.equal(challenge.describe?.title, 'Harbour Tides');
    assert.equal(fromSettlement.title, challenge.describe?.title);
    assert.deepEqual(fromSettlement.tags, challenge.describe?.tags);
    assert.equal(fromSettlement.iconUrl, 'https://icons.tides.example/logo.png');
    assert.equal(fromSettlement.iconUrl, challenge.describe?.iconUrl);
    assert.equal(sighting.input.routeTemplate, challenge.routeTemplate);
  });

  it('a settlement of an MCP tool named with the `tool` key is cataloged as that tool, with its title and icon', () => {
    const sighting = sightingOf({
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        resource: { url: 'mcp://tools.tides.example/tide_times', serviceName: 'Harbour Tides', iconUrl: 'https://icons.tides.example/t.png' },
        accepted: accept,
        payload: {},
        extensions: { bazaar: { info: { input: { type: 'mcp', tool: 'tide_times', inputSchema: { type: 'object' } } } } },
      },
      paymentRequirements: accept,
    });
    assert.ok(sighting && sighting.input.type === 'mcp');
    assert.equal(sighting.input.name, 'tide_times');
    assert.equal(sighting.input.title, 'Harbour Tides');
    assert.equal(sighting.input.iconUrl, 'https://icons.tides.example/t.png');
  });
});
