import assert from 'node:assert/strict';
import { outcomeLifts } from '../../src/outcomes/outcomeRules.js';

const DAY = 86_400_000;
const now = Date.parse('2026-12-08T00:00:00Z');
const tunables = { weight: 60, minSimilarity: 0.3, minPayers: 3, saturation: 2, halfLifeDays: 30 };
const near = (listingId: string, payer: string, cosine = 1, daysAgo = 0) => ({ listingId, payer, cosine, at: new Date(now - daysAgo * DAY).toISOString() });

describe('unit: paid outcomes as a bounded ranking feature (outcomes/outcomeRules.ts)', () => {
  it('distinct payers lift a listing, bounded by the weight; fewer than minPayers lift nothing', () => {
    const [lift] = outcomeLifts([near('a', '0x1'), near('a', '0x2'), near('a', '0x3'), near('b', '0x1'), near('b', '0x2')], tunables, now);
    assert.equal(lift!.id, 'a');
    assert.equal(lift!.payers, 3);
    assert.ok(Math.abs(lift!.boost - 60 * (1 - Math.exp(-3 / 2))) < 1e-9);
    const many = outcomeLifts(Array.from({ length: 500 }, (_, i) => near('a', `0x${i}`)), tunables, now);
    assert.ok(many[0]!.boost <= 60);
  });

  it('one payer counts once however often it paid (50 outcomes of one payer lift nothing)', () => {
    assert.deepEqual(outcomeLifts(Array.from({ length: 50 }, () => near('a', '0xAbC')), tunables, now), []);
    const [lift] = outcomeLifts([...Array.from({ length: 50 }, () => near('a', '0xabc')), near('a', '0x2'), near('a', '0x3')], tunables, now);
    assert.equal(lift!.payers, 3);
  });

  it('votes fade with time and with distance in meaning; weight 0 is off', () => {
    const fresh = outcomeLifts([near('a', '0x1'), near('a', '0x2'), near('a', '0x3')], tunables, now)[0]!.boost;
    const old = outcomeLifts([near('a', '0x1', 1, 60), near('a', '0x2', 1, 60), near('a', '0x3', 1, 60)], tunables, now)[0]!.boost;
    const far = outcomeLifts([near('a', '0x1', 0.5), near('a', '0x2', 0.5), near('a', '0x3', 0.5)], tunables, now)[0]!.boost;
    assert.ok(old < fresh && far < fresh);
    assert.ok(Math.abs(old - 60 * (1 - Math.exp(-0.75 / 2))) < 1e-9); // two half-lives: a quarter vote each
    assert.deepEqual(outcomeLifts([near('a', '0x1'), near('a', '0x2'), near('a', '0x3')], { ...tunables, weight: 0 }, now), []);
  });
});
