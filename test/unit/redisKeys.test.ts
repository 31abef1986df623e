import assert from 'node:assert/strict';
import calculateSlot from 'cluster-key-slot';
import { redisKeys, SLOT_GROUPS, taggedName } from '../../src/store/redis/redisKeys.js';

type Keys = ReturnType<typeof redisKeys>;

/**
 * Every key of the builder, by the group of keys that one command, script, transaction, pipeline or
 * stream uses together (the header of store/redis/redisKeys.ts). A key added to the builder without a
 * place here fails the last test, so a new key cannot skip the one-slot check.
 */
const GROUPS: Record<string, (k: Keys) => string[]> = {
  catalog: (k) => [
    k.writeStream, k.deadLetters, k.writeFailures, k.liveIds, `${k.consumerHeartbeatPrefix}c1`, `${k.historyPrefix}x`, k.historyState,
    k.historyEvents('lst_1'), k.historyEvents('lst_2'), k.changes, k.changesLatest, k.changesSeeded, k.changesEpoch,
  ],
  probe: (k) => [k.probeRecord('lst_1'), k.probeRecord('lst_9'), k.probeDue, k.probeLock('lst_1'), k.probeAlias('a1'), k.probeHostWindow('a.example:443')],
  ledger: (k) => [
    k.ledgerBalance('eip155:84532', '0xA', '0xB'), k.ledgerBalance('eip155:84532', '0xA', '0xC'), k.ledgerBalancesOf('eip155:84532'),
    k.ledgerNonces('eip155:84532', 'eip3009:0xa'), k.ledgerUsedNonces('eip155:84532', 'eip3009:0xa'), k.ledgerSponsor('eip155:84532'), k.settleResult('h1'), k.settleLock('h1'), k.settleResult('h2'),
    k.settleTx('eip155:84532:0xa:0xb:0x01'), k.senderLock('eip155:84532:0xf'), k.senderNextNonce('eip155:84532:0xf'),
  ],
  tokens: (k) => [k.sellerToken('tok_1'), k.sellerTokenByHash('ab'), k.sellerTokens],
  signals: (k) => [
    k.signalBuckets('lst_1', 'settle'), k.signalBuckets('lst_2', 'verify'), k.signalLastSettled('lst_1'), k.signalFirstSettled('lst_1'), k.signalFirstSettledTx('lst_1'), k.signalLastSettledTx('lst_1'), k.signalPayers('lst_1', 20000), k.signalSettleDays('lst_1'), k.signalTopPayers('lst_1', 20000), k.signalAmounts('lst_1'),
    k.signalPayerDay('lst_1', 'settle', 20000), k.signalsDirty, k.signalsAging, k.healthChecks('lst_1'),
  ],
  credits: (k) => [k.pendingCredits, k.pendingCreditsAt],
  sponsor: (k) => [k.sponsorSpent('payer', 20000), k.sponsorSpent('payee', 20000), k.sponsorFunders('0xA'), k.sponsorFunders('0xB'), k.sponsorCircular(20000)],
  /** The payer-limit script's two keys: the window counter and one payment in it. */
  payerPayment: (k) => {
    const counter = k.payerPayments('settle', 7, '0xabc');
    return [counter, `${counter}:eip155:84532|eip3009:0xa|0x01`];
  },
};

/** Single-key names: spread over the cluster, never in a multi-key command. */
const SINGLE: Array<(k: Keys) => string> = [
  (k) => k.publishedOwner('lst_1'), (k) => k.cursorSecret, (k) => k.rateLimit('reads', 5, '203.0.113.7'),
  (k) => k.lease('staleness-sweeper'), (k) => k.reachUpstream('cdp'), (k) => k.reachPages('cdp'), (k) => k.reachOrigin('https://a.example'),
  (k) => k.optOut('lst_1'), (k) => k.outcomeSearches('0xabc'), (k) => k.outcomePaidBy('0xdef'), (k) => k.settlementByHash('0x01'), (k) => k.settlementsOfPayee('0xabc'),
];

describe('unit: Redis key builder', () => {
  const keys = redisKeys('p:');

  for (const [group, members] of Object.entries(GROUPS)) {
    it(`the ${group} keys share one Redis Cluster hash slot`, () => {
      const slots = new Set(members(keys).map((key) => calculateSlot(key)));
      assert.equal(slots.size, 1, `${group}: ${members(keys).map((key) => `${key} -> ${calculateSlot(key)}`).join(', ')}`);
    });
  }

  it('different payers and listings of single-key groups land in different slots (no hot slot)', () => {
    const payers = new Set(['0x1', '0x2', '0x3', '0x4'].map((payer) => calculateSlot(keys.payerPayments('verify', 1, payer))));
    const limits = new Set(['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'].map((ip) => calculateSlot(keys.rateLimit('reads', 1, ip))));
    assert.ok(payers.size > 1 && limits.size > 1);
  });

  it('names keep the old name after the tag, under the deployment prefix', () => {
    assert.equal(keys.writeStream, 'p:{catalog}catalog:writes');
    assert.equal(keys.probeRecord('lst_1'), 'p:{probe}probe:rec:lst_1');
    assert.equal(keys.settleResult('h'), 'p:{ledger}settle:result:h');
    assert.equal(keys.sellerTokens, 'p:{tokens}seller-tokens');
    assert.equal(keys.signalsDirty, 'p:{signals}signals:dirty');
    assert.equal(keys.cursorSecret, 'p:cursor-secret');
    assert.equal(keys.rateLimit('reads', 5, '203.0.113.7'), 'p:ratelimit:reads:5:203.0.113.7');
    assert.equal(keys.payerPayments('verify', 3, '0xab'), 'p:{ratelimit:verify-payer:3:0xab}');
    assert.deepEqual([...SLOT_GROUPS].sort(), ['catalog', 'credits', 'ledger', 'probe', 'signals', 'sponsor', 'tokens']);
  });

  it('ledger keys are case-insensitive in asset and address, and the balance pattern matches them', () => {
    const key = keys.ledgerBalance('eip155:84532', '0xABC', '0xDEF');
    assert.equal(key, 'p:{ledger}ledger:balance:eip155:84532:0xabc:0xdef');
    const pattern = keys.ledgerBalancesOf('eip155:84532');
    assert.ok(key.startsWith(pattern.slice(0, -1)) && pattern.endsWith('*'));
  });

  it('every key lives under the deployment prefix, so dropping the prefix drops them all', () => {
    assert.equal(keys.everything, 'p:*');
    const all = [...Object.values(GROUPS).flatMap((members) => members(keys)), ...SINGLE.map((key) => key(keys))];
    for (const key of all) assert.ok(key.startsWith('p:'), key);
    assert.ok(redisKeys('q:').probeRecord('x').startsWith('q:'));
  });

  it('the key migration maps every old name to its tagged name, and leaves single-key names alone', () => {
    for (const members of Object.values(GROUPS).slice(0, -1)) {
      for (const key of members(keys)) {
        const legacy = key.replace(/^p:\{[a-z]+\}/, 'p:');
        assert.equal(taggedName('p:', legacy), key, legacy);
        assert.equal(taggedName('p:', key), undefined, 'a tagged key is not renamed again');
      }
    }
    for (const key of SINGLE) assert.equal(taggedName('p:', key(keys)), undefined);
    assert.equal(taggedName('p:', 'other:ledger:x'), undefined, 'another deployment\'s key');
  });

  it('every key of the builder is checked above', () => {
    // The tables read the builder through a recorder: a key they never read is one nobody checked.
    const builder = redisKeys('p:');
    const read = new Set<string>();
    const recorder = new Proxy(builder, { get: (target, name: string) => (read.add(name), target[name as keyof Keys]) });
    for (const members of Object.values(GROUPS)) members(recorder);
    for (const key of SINGLE) key(recorder);
    const unchecked = Object.keys(builder).filter((name) => name !== 'everything' && !read.has(name));
    assert.deepEqual(unchecked, []);
  });
});
