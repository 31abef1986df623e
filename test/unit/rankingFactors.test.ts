import assert from 'node:assert/strict';
import { factorProbes, factorRescore, FACTOR_NAMES, namedRelevance, rankedQuery, textQualityProbe } from '../../src/search/rankingFactors.js';
import { shippedRanking, type RankingSettings } from '../../src/search/rankingSettings.js';

/**
 * A small interpreter of the function_score subset the factors use (weights, linear
 * field_value_factor, exp decays, range/exists/bool filters), so the tests read the factor a
 * listing gets instead of the shape of the JSON.
 */
type Json = Record<string, unknown>;
type Doc = Record<string, number | undefined>;

function matches(filter: Json | undefined, doc: Doc): boolean {
  if (!filter) return true;
  if ('exists' in filter) return doc[(filter.exists as { field: string }).field] !== undefined;
  if ('bool' in filter) return !matches((filter.bool as { must_not: Json }).must_not, doc);
  if ('range' in filter) {
    const [field, bounds] = Object.entries(filter.range as Record<string, { lt?: number; gte?: number }>)[0]!;
    const value = doc[field];
    if (value === undefined) return false;
    return (bounds.lt === undefined || value < bounds.lt) && (bounds.gte === undefined || value >= bounds.gte);
  }
  throw new Error(`filter not interpreted: ${JSON.stringify(filter)}`);
}

function functionValue(fn: Json, doc: Doc): number {
  const weight = (fn.weight as number | undefined) ?? 1;
  if ('field_value_factor' in fn) {
    const { field, factor, missing } = fn.field_value_factor as { field: string; factor: number; missing: number };
    return (doc[field] ?? missing) * factor * weight;
  }
  if ('exp' in fn) {
    const [field, p] = Object.entries(fn.exp as Record<string, { origin: number; scale: number; offset: number; decay: number }>)[0]!;
    const distance = Math.max(0, Math.abs((doc[field] ?? p.origin) - p.origin) - p.offset);
    return Math.pow(p.decay, distance / p.scale) * weight;
  }
  return weight;
}

/** The factor of one function_score (score_mode sum) for `doc`. */
function factor(functions: Json[], doc: Doc): number {
  return functions.filter((fn) => matches(fn.filter as Json | undefined, doc)).reduce((sum, fn) => sum + functionValue(fn, doc), 0);
}

/** The functions of the probe named `name` in explain's post_filter. */
function probe(settings: RankingSettings, name: string): Json[] {
  const probes = (factorProbes(settings, 0).bool as { filter: Array<{ function_score: { _name: string; functions: Json[] } }> }).filter;
  return probes.find((p) => p.function_score._name === name)!.function_score.functions;
}

describe('unit: ranking factors', () => {
  const shipped = shippedRanking();
  const health = (uptime7d?: number, settings = shipped) => factor(probe(settings, FACTOR_NAMES.health), { 'signals.health.uptime7d': uptime7d });
  const price = (amount: number, settings = shipped) => factor(probe(settings, FACTOR_NAMES.price), { 'payment.amount': amount });

  it('health: exactly 1 for a listing never checked or at/above the threshold', () => {
    assert.equal(health(undefined), 1);
    assert.equal(health(0.9), 1);
    assert.equal(health(1), 1);
  });

  it('health: below the threshold, floor + (1 - floor) x uptime / threshold, down to the floor at 0', () => {
    assert.equal(health(0), 0.3);
    assert.ok(Math.abs(health(0.45) - (0.3 + 0.7 * 0.5)) < 1e-9);
    assert.ok(health(0.2) < health(0.6), 'less uptime, lower factor');
  });

  it('health: threshold 0 gives every listing 1; floor 1 does too', () => {
    const off = { ...shipped, health: { threshold: 0, floor: 0.3 } };
    assert.equal(health(0, off), 1);
    const flat = { ...shipped, health: { threshold: 0.9, floor: 1 } };
    assert.equal(health(0.1, flat), 1);
  });

  it('price: within [floor, 1]: the cheapest get 1, any price keeps at least the floor', () => {
    assert.equal(price(0), 1);
    assert.equal(price(1000), 1, 'inside the offset: free and cheap listings are equal');
    assert.ok(Math.abs(price(1_001_000) - (0.85 + 0.15 * 0.5)) < 1e-9, 'one scale past the offset: half the decaying part');
    assert.ok(price(10 ** 15) >= 0.85 && price(10 ** 15) < 0.851);
  });

  it('price floor 1: price does not move the ranking; floor 0: the decay alone', () => {
    assert.equal(price(10 ** 12, { ...shipped, price: { ...shipped.price, floor: 1 } }), 1);
    assert.ok(price(10 ** 12, { ...shipped, price: { ...shipped.price, floor: 0 } }) < 1e-6);
  });

  it('recency: a listing never settled gets neverSettled; one settled now gets 1', () => {
    const functions = probe(shipped, FACTOR_NAMES.recency);
    assert.equal(factor(functions, {}), shipped.recency.neverSettled);
    const origin = (functions.find((fn) => 'exp' in fn)!.exp as Record<string, { origin: number }>)['signals.lastSettled']!.origin;
    assert.equal(origin, 0, 'the recency origin is the `now` of the read');
  });

  it('text quality is multiplied in (squared by default) and left out when stuffing is off', () => {
    const quality = (textQualityProbe(shipped) as { function_score: { _name: string; functions: Json[] } }).function_score;
    assert.equal(quality._name, FACTOR_NAMES.textQuality);
    assert.deepEqual(quality.functions, [{ field_value_factor: { field: 'textQuality', modifier: 'square', missing: 1 } }]);
    assert.equal(textQualityProbe({ ...shipped, stuffing: 'off' }), undefined);
    assert.ok(!JSON.stringify(factorProbes(shipped, 0)).includes(FACTOR_NAMES.textQuality), 'explain=1 reads relevance, text quality in it, from the score');
    assert.ok(!JSON.stringify(rankedQuery({ match_all: {} }, { ...shipped, stuffing: 'off' }, 0)).includes('textQuality'));
  });

  it('the exact query and the window rescore apply the same factors to the same `now`', () => {
    const text = { match: { phrase_text: 'weather' } };
    const exact = JSON.stringify(rankedQuery(text, shipped, 1_700_000_000_000));
    const rescore = factorRescore(shipped, 1_700_000_000_000, 300) as { window_size: number; query: { rescore_query: Json } };
    assert.equal(rescore.window_size, 300);
    const rescored = JSON.stringify(rescore.query.rescore_query);
    assert.equal(rescored, exact.replace(JSON.stringify(text), JSON.stringify({ match_all: {} })));
  });

  it('explain names the text query `relevance` without changing what it matches', () => {
    const text = { bool: { should: [{ match: { a: 'b' } }], minimum_should_match: 1 } };
    assert.deepEqual(namedRelevance(text), { bool: { ...text.bool, _name: 'relevance' } });
  });
});
