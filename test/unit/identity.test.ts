import assert from 'node:assert/strict';
import { canonicalizeHttpUrl, canonicalizeMcpResource, httpListingId, InvalidResourceError, mcpListingId } from '../../src/catalog/identity.js';

describe('unit: listing identity (canonical keys and ids)', () => {
  it('canonical URL: lower-case scheme and host, no default port, query or fragment, brace templates', () => {
    assert.equal(canonicalizeHttpUrl('HTTPS://API.Example.com:443/Users/:id?x=1#f'), 'https://api.example.com/Users/{id}');
    assert.equal(canonicalizeHttpUrl('http://a.example:8080'), 'http://a.example:8080/');
    assert.equal(canonicalizeHttpUrl('https://a.example/users/42', '/users/:userId'), 'https://a.example/users/{userId}');
  });

  it('refuses what cannot be listed', () => {
    assert.throws(() => canonicalizeHttpUrl('ftp://a.example/x'), InvalidResourceError);
    assert.throws(() => canonicalizeHttpUrl('https://user:pw@a.example/x'), InvalidResourceError);
    assert.throws(() => canonicalizeHttpUrl('/relative'), InvalidResourceError);
    assert.throws(() => canonicalizeMcpResource('https://a.example/tool', 'tool'), InvalidResourceError);
  });

  it('the same resource seen again gets the same id, whatever its spelling', () => {
    assert.equal(httpListingId('https://A.example/x?q=1'), httpListingId('https://a.example:443/x'));
    assert.notEqual(httpListingId('https://a.example/x', 'GET'), httpListingId('https://a.example/x', 'POST'));
    assert.match(httpListingId('https://a.example/x'), /^lst_[0-9a-f]{24}$/);
    assert.equal(mcpListingId('mcp://Tools.example/get_weather', 'get_weather'), mcpListingId('mcp://tools.example', 'get_weather'));
  });
});
