import assert from 'node:assert/strict';
import { claimOfEntry, lastUpdatedIso } from '../../src/federation/claims.js';
import { ManifestShapeError, parseOpenApi, parseWellKnown } from '../../src/federation/manifest.js';
import { pageUrl, parseUpstreamPage, UpstreamShapeError } from '../../src/federation/upstreamPage.js';

describe('unit: reach parsing (upstream pages, manifests)', () => {
  it('lastUpdated as epoch seconds, milliseconds, digit strings or ISO; anything else is dropped', () => {
    assert.equal(lastUpdatedIso(1763632800), '2025-11-20T10:00:00.000Z');
    assert.equal(lastUpdatedIso(1763632800000), '2025-11-20T10:00:00.000Z');
    assert.equal(lastUpdatedIso('1763632800'), '2025-11-20T10:00:00.000Z');
    assert.equal(lastUpdatedIso('2025-11-20T10:00:00Z'), '2025-11-20T10:00:00.000Z');
    for (const bad of ['yesterday', -5, 0, Number.NaN, {}, '2025-13-45T99:00:00Z', 1e20]) assert.equal(lastUpdatedIso(bad), undefined, String(bad));
  });

  it('a v1 Bazaar item: the method from its outputSchema, the description from its requirements, metadata as claims', () => {
    const claim = claimOfEntry({
      resource: 'https://api.example/news',
      type: 'http',
      x402Version: 1,
      accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '10', description: 'Headlines', outputSchema: { input: { type: 'http', method: 'post' } } }],
      lastUpdated: 1763632800,
      metadata: { provider: 'News Co', tags: ['news', 'news', ''], logo: 'javascript:alert(1)' },
    });
    assert.deepEqual(claim, {
      resource: 'https://api.example/news',
      method: 'POST',
      claims: { serviceName: 'News Co', description: 'Headlines', tags: ['news'], lastUpdated: '2025-11-20T10:00:00.000Z' },
    });
  });

  it('entries the probe cannot use are skipped with a reason', () => {
    assert.match((claimOfEntry({ resource: 'mcp://t.example/x', type: 'mcp' }) as { reason: string }).reason, /type mcp/);
    assert.match((claimOfEntry({ type: 'http' }) as { reason: string }).reason, /no resource/);
    assert.match((claimOfEntry({ resource: 'https://a.example', method: 'GET /x' }) as { reason: string }).reason, /method/);
    assert.equal((claimOfEntry('https://a.example') as { reason: string }).reason, 'not an object');
  });

  it('huge or odd claims are bounded: long text cut, at most 20 tags, a quality figure only while small', () => {
    const claim = claimOfEntry({ resource: 'https://a.example/x', serviceName: 'n'.repeat(5000), tags: Array.from({ length: 50 }, (_, i) => `t${i}`), quality: { blob: 'q'.repeat(5000) } });
    assert.ok('claims' in claim);
    assert.equal(claim.claims.serviceName?.length, 500);
    assert.equal(claim.claims.tags?.length, 20);
    assert.equal(claim.claims.quality, undefined);
  });

  it('offset paging: next offset until total; without total, until a short page', () => {
    const items = [{ resource: 'https://a.example/1' }, { resource: 'https://a.example/2' }];
    assert.deepEqual(parseUpstreamPage({ items, pagination: { limit: 2, offset: 0, total: 3 } }, { offset: 0 }, 2).next, { offset: 2 });
    assert.equal(parseUpstreamPage({ items, pagination: { limit: 2, offset: 2, total: 4 } }, { offset: 2 }, 2).next, undefined);
    assert.deepEqual(parseUpstreamPage({ items }, { offset: 4 }, 2).next, { offset: 6 });
    assert.equal(parseUpstreamPage({ items: items.slice(1) }, { offset: 6 }, 2).next, undefined);
    assert.equal(parseUpstreamPage({ items: [] }, { offset: 0 }, 2).next, undefined);
  });

  it('cursor paging: a next cursor in pagination or beside it; the same cursor twice ends the crawl', () => {
    const items = [{ resource: 'https://a.example/1' }];
    assert.deepEqual(parseUpstreamPage({ items, pagination: { nextCursor: 'c2' } }, { offset: 0 }, 1).next, { cursor: 'c2' });
    assert.deepEqual(parseUpstreamPage({ items, nextCursor: 'c3' }, { cursor: 'c2' }, 1).next, { cursor: 'c3' });
    assert.equal(parseUpstreamPage({ items, nextCursor: 'c2' }, { cursor: 'c2' }, 1).next, undefined);
    assert.equal(parseUpstreamPage({ items, pagination: { hasMore: false, nextCursor: 'c9' } }, { offset: 0 }, 1).next, undefined);
    assert.equal(pageUrl('https://u.example/list?type=http&offset=3', { cursor: 'a b' }, 50), 'https://u.example/list?type=http&limit=50&cursor=a+b');
  });

  it('an answer that is no discovery list is an error, not an empty catalog', () => {
    for (const body of [null, [], 'html', { error: 'down' }, { items: 'x' }]) assert.throws(() => parseUpstreamPage(body, { offset: 0 }, 10), UpstreamShapeError);
  });

  it('/.well-known/x402 as a resource list (relative entries allowed) and as an items list; other sites are skipped', () => {
    const list = parseWellKnown({ version: 1, resources: ['/a', 'https://shop.example/b', 'https://api.shop.example/c', 'https://evil.example/d', 'http://['] }, 'https://shop.example/.well-known/x402');
    assert.equal(list.shape, 'x402-resources');
    assert.deepEqual(list.claims.map((c) => c.resource), ['https://shop.example/a', 'https://shop.example/b', 'https://api.shop.example/c']);
    assert.deepEqual(list.skipped.map((s) => s.resource), ['https://evil.example/d', 'http://[']);
    const items = parseWellKnown({ x402Version: 2, items: [{ resource: 'https://shop.example/q', type: 'http', extensions: { bazaar: { info: { input: { method: 'POST' } } } }, tags: ['x'] }] }, 'https://shop.example/.well-known/x402');
    assert.equal(items.shape, 'x402-items');
    assert.deepEqual(items.claims, [{ resource: 'https://shop.example/q', method: 'POST', claims: { tags: ['x'] } }]);
    assert.throws(() => parseWellKnown({ hello: 1 }, 'https://shop.example/.well-known/x402'), ManifestShapeError);
  });

  it('OpenAPI: operations with x-payment-info at the first server; templated paths skipped with a reason', () => {
    const doc = {
      openapi: '3.1.0',
      servers: [{ url: '/api' }],
      paths: {
        '/quotes': { get: { summary: 'Quotes', tags: ['finance'], 'x-payment-info': { price: '0.01' } }, post: { summary: 'free' } },
        '/users/{id}': { get: { 'x-payment-info': {} } },
      },
    };
    const content = parseOpenApi(doc, 'https://shop.example/openapi.json');
    assert.deepEqual(content.claims, [{ resource: 'https://shop.example/api/quotes', method: 'GET', claims: { description: 'Quotes', tags: ['finance'] } }]);
    assert.equal(content.skipped.length, 1);
    assert.match(content.skipped[0]!.reason, /path template/);
    assert.throws(() => parseOpenApi({ paths: {} }, 'https://shop.example/openapi.json'), ManifestShapeError);
  });
});
