import assert from 'node:assert/strict';
import { BoundHosts } from '../../src/publish/boundHosts.js';
import { hostIsBound, normalizeBoundHost, resourceAuthority } from '../../src/publish/hostBinding.js';
import { hashSellerToken, InvalidTokenRequestError, SellerTokenStore } from '../../src/publish/sellerTokens.js';
import { manualClock } from './fakes/clock.js';
import { fakeSellerTokenRecords } from './fakes/sellerTokenRecords.js';

describe('unit: seller tokens', () => {
  it('a token is shown once and only its hash is kept; it authenticates until revoked', async () => {
    const fake = fakeSellerTokenRecords();
    const clock = manualClock();
    const store = new SellerTokenStore(fake.records, clock.now);
    const { token, secret } = await store.issue(['API.Example.com.', 'api.example.com', '127.0.0.1:8081'], 'weather');
    assert.match(secret, /^pdsk_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(token.hosts, ['api.example.com', '127.0.0.1:8081'], 'normalised, once each');
    assert.deepEqual([...fake.hashes.keys()], [hashSellerToken(secret)]);
    assert.ok(!JSON.stringify([...fake.tokens.values()]).includes(secret), 'the secret is stored nowhere');
    assert.deepEqual(await store.authenticate(secret), { ok: true, token });
    clock.advance(1000);
    const revoked = await store.revoke(token.id);
    assert.equal(revoked?.revokedAt, new Date(clock.now()).toISOString());
    clock.advance(1000);
    assert.equal((await store.revoke(token.id))?.revokedAt, revoked?.revokedAt, 'revoking twice keeps the first time');
    assert.deepEqual(await store.authenticate(secret), { ok: false, reason: 'revoked' });
  });

  it('refuses malformed and unknown secrets without telling them apart from the hash store', async () => {
    const store = new SellerTokenStore(fakeSellerTokenRecords().records);
    assert.deepEqual(await store.authenticate('pdsk_short'), { ok: false, reason: 'malformed' });
    assert.deepEqual(await store.authenticate(`pdsk_${'A'.repeat(43)}`), { ok: false, reason: 'unknown' });
    assert.equal(await store.revoke('tok_nope'), undefined);
  });

  it('issuing needs at least one real host and a label of 1-100 characters', async () => {
    const store = new SellerTokenStore(fakeSellerTokenRecords().records);
    for (const [hosts, label] of [[[], undefined], [['https://a.example'], undefined], [['a.example:70000'], undefined], [['a.example'], ''], [['a.example'], 'x'.repeat(101)]] as const) {
      await assert.rejects(store.issue([...hosts], label), InvalidTokenRequestError, JSON.stringify(hosts));
    }
  });
});

describe('unit: hosts bound to seller tokens', () => {
  it('normalises host entries and refuses what is not a host', () => {
    assert.equal(normalizeBoundHost(' API.Example.COM. '), 'api.example.com');
    assert.equal(normalizeBoundHost('*.example.com'), '*.example.com');
    assert.equal(normalizeBoundHost('[::1]:8080'), '[::1]:8080');
    for (const bad of ['a..b', '-a.example', 'a.example/x', 'a.example:99999', 'a*.example.com', '']) assert.equal(normalizeBoundHost(bad), undefined, bad);
  });

  it('a host without a port binds every port; a wildcard binds sub-domains only', () => {
    assert.equal(hostIsBound(['api.example.com'], 'api.example.com:8443'), true);
    assert.equal(hostIsBound(['api.example.com:8081'], 'api.example.com:8082'), false);
    assert.equal(hostIsBound(['*.example.com'], 'tools.example.com'), true);
    assert.equal(hostIsBound(['*.example.com'], 'example.com'), false);
    assert.equal(hostIsBound(['*.example.com'], 'badexample.com'), false);
    assert.equal(hostIsBound(['[::1]'], '[::1]:9000'), true);
  });

  it('the authority of a resource ignores credentials, path, query and case', () => {
    assert.equal(resourceAuthority('mcp://Tools.Example:9000/tool'), 'tools.example:9000');
    assert.equal(resourceAuthority('https://user@a.example/x?y#z'), 'a.example');
    assert.equal(resourceAuthority('not a url'), undefined);
  });

  it('the bound-host cache: re-read after its lifetime, at once after this process issues a token', async () => {
    const clock = manualClock(0);
    const fake = fakeSellerTokenRecords();
    const store = new SellerTokenStore(fake.records, clock.now);
    const bound = new BoundHosts(store, 2000, clock.now);
    assert.equal(await bound.bindsResource('mcp://a.example/t'), false);
    await store.issue(['a.example']);
    assert.equal(await bound.bindsResource('mcp://a.example/t'), true, 'own issue: seen at once');
    await fake.records.create({ id: 'tok_elsewhere', hosts: ['b.example'], createdAt: '' }, 'h');
    assert.equal(await bound.bindsResource('mcp://b.example/t'), false, 'another process\'s token: not yet');
    clock.advance(2000);
    assert.equal(await bound.bindsResource('mcp://b.example/t'), true, 'within the cache lifetime');
    assert.equal(await bound.bindsResource('no host'), true, 'a resource without a host is nobody\'s to list');
  });
});
