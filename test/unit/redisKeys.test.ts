import assert from 'node:assert/strict';
import { redisKeys } from '../../src/store/redisKeys.js';

describe('unit: Redis key builder', () => {
  const keys = redisKeys('p:');

  it('keeps the key names already in Redis (no migration)', () => {
    assert.equal(keys.writeStream, 'p:catalog:writes');
    assert.equal(keys.deadLetters, 'p:catalog:writes:dead');
    assert.equal(keys.writeFailures, 'p:catalog:writes:failures');
    assert.equal(keys.liveIds, 'p:catalog:live');
    assert.equal(keys.probeRecord('lst_1'), 'p:probe:rec:lst_1');
    assert.equal(keys.probeDue, 'p:probe:due');
    assert.equal(keys.probeLock('lst_1'), 'p:probe:lock:lst_1');
    assert.equal(keys.probeAlias('lst_1'), 'p:probe:alias:lst_1');
    assert.equal(keys.probeHostSlot('a.example:443', 17), 'p:probe:host:a.example:443:17');
    assert.equal(keys.settleResult('h'), 'p:settle:result:h');
    assert.equal(keys.settleLock('h'), 'p:settle:lock:h');
    assert.equal(keys.sellerToken('tok_1'), 'p:seller-token:tok_1');
    assert.equal(keys.sellerTokenByHash('ab'), 'p:seller-token-hash:ab');
    assert.equal(keys.sellerTokens, 'p:seller-tokens');
    assert.equal(keys.signalBuckets('lst_1', 'settle'), 'p:signals:lst_1:settle');
    assert.equal(keys.signalLastSettled('lst_1'), 'p:signals:lst_1:lastSettled');
    assert.equal(keys.signalsDirty, 'p:signals:dirty');
    assert.equal(keys.signalsAging, 'p:signals:aging');
    assert.equal(keys.trafficAccepts('lst_1'), 'p:traffic:accepts:lst_1');
    assert.equal(keys.publishedOwner('lst_1'), 'p:published-owner:lst_1');
    assert.equal(keys.cursorSecret, 'p:cursor-secret');
    assert.equal(keys.rateLimit('reads', 5, '203.0.113.7'), 'p:ratelimit:reads:5:203.0.113.7');
  });

  it('ledger keys are case-insensitive in asset and address, and the balance pattern matches them', () => {
    const key = keys.ledgerBalance('eip155:84532', '0xABC', '0xDEF');
    assert.equal(key, 'p:ledger:balance:eip155:84532:0xabc:0xdef');
    const pattern = keys.ledgerBalancesOf('eip155:84532');
    assert.ok(key.startsWith(pattern.slice(0, -1)) && pattern.endsWith('*'));
    assert.equal(keys.ledgerNonces('eip155:84532', 'permit2:0xa'), 'p:ledger:nonces:eip155:84532:permit2:0xa');
    assert.equal(keys.ledgerSponsor('eip155:84532'), 'p:ledger:sponsor:eip155:84532');
  });

  it('every key lives under the deployment prefix, so dropping the prefix drops them all', () => {
    assert.equal(keys.everything, 'p:*');
    const other = redisKeys('q:');
    assert.notEqual(other.writeStream, keys.writeStream);
    assert.ok(other.probeRecord('x').startsWith('q:'));
  });
});
