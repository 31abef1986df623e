import assert from 'node:assert/strict';
import { loadIndexDefinition } from '../../src/store/elasticsearch/listingIndex.js';
import { DEFAULT_HEALTH, shippedRanking, textFieldsOf, validateRanking } from '../../src/search/rankingSettings.js';

const shippedRaw = () => structuredClone(loadIndexDefinition().mappings._meta?.ranking) as Record<string, unknown>;
const problemsOf = (change: (raw: Record<string, any>) => void, textFields?: ReadonlySet<string>): string[] => {
  const raw = shippedRaw();
  change(raw);
  return validateRanking(raw, { k1: 1.2, b: 0.75 }, textFields).problems;
};

describe('unit: ranking tunables (operator input)', () => {
  it('the shipped tunables are valid', () => {
    assert.deepEqual(problemsOf(() => undefined), []);
    assert.equal(shippedRanking().window, 300);
  });

  it('numbers may come as strings (index settings always do)', () => {
    const result = validateRanking(shippedRaw(), { k1: '1.5', b: '0.5' });
    assert.deepEqual(result.settings?.bm25, { k1: 1.5, b: 0.5 });
  });

  it('refuses a boost on a field the index does not have, so a typo cannot silently drop matching', () => {
    const fields = textFieldsOf(loadIndexDefinition().mappings.properties);
    assert.ok(fields.has('phrase_text') && fields.has('keywords.stemmed'));
    assert.deepEqual(problemsOf((raw) => { raw.fields = { phrase_txt: 1 }; }, fields), ['fields.phrase_txt: not a text field of the index']);
  });

  it('refuses no field, or every boost at 0', () => {
    assert.ok(problemsOf((raw) => { raw.fields = {}; }).some((p) => p.startsWith('fields:')));
    assert.ok(problemsOf((raw) => { raw.fields = { phrase_text: 0 }; }).includes('fields: at least one boost must be above 0'));
  });

  it('decays: decay strictly between 0 and 1, scale above 0, durations like 7d', () => {
    assert.equal(problemsOf((raw) => { raw.price.decay = 1; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.price.decay = 0; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.price.scale = 0; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.recency.scale = '0d'; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.recency.scale = '1 week'; }).length, 1);
    assert.deepEqual(problemsOf((raw) => { raw.recency.offset = '0s'; }), [], 'an offset may be 0');
    assert.equal(problemsOf((raw) => { raw.price.function = 'sigmoid'; }).length, 1);
  });

  it('rareWords: a boost of 0 and up, at least one listing; an index made before it reads it off', () => {
    assert.deepEqual(problemsOf((raw) => { raw.rareWords = { boost: 40, maxListings: 10 }; }), []);
    assert.equal(problemsOf((raw) => { raw.rareWords = { boost: -1, maxListings: 10 }; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.rareWords = { boost: 40, maxListings: 0 }; }).length, 1);
    const raw = shippedRaw();
    delete raw.rareWords;
    assert.deepEqual(validateRanking(raw, { k1: 1.2, b: 0.75 }).settings?.rareWords, { boost: 0, maxListings: 10 });
  });

  it('typo fuzziness and synonym groups are checked (they become query clauses)', () => {
    assert.equal(problemsOf((raw) => { raw.typos.fuzziness = '3'; }).length, 1);
    assert.deepEqual(problemsOf((raw) => { raw.typos.fuzziness = 'AUTO:4,8'; }), []);
    assert.equal(problemsOf((raw) => { raw.synonyms.groups = [['lonely']]; }).length, 1, 'a group needs two phrases');
    assert.equal(problemsOf((raw) => { raw.synonyms.groups = [['ok', '!!!']]; }).length, 1, 'a phrase needs a letter or digit');
    assert.equal(problemsOf((raw) => { raw.synonyms.groups = 'sms,text'; }).length, 1);
  });

  it('synonym phrases are trimmed and lower-cased', () => {
    const raw = shippedRaw();
    (raw.synonyms as { groups: string[][] }).groups = [[' SMS ', 'Text Message']];
    assert.deepEqual(validateRanking(raw, {}).settings?.synonyms.groups, [['sms', 'text message']]);
  });

  it('indexes made before a tunable existed read it as off (typos, synonyms, semantic, window) or the shipped default (health)', () => {
    const raw = shippedRaw();
    for (const key of ['typos', 'synonyms', 'semantic', 'window', 'health', 'exactName', 'stuffing']) delete raw[key];
    const settings = validateRanking(raw, {}).settings!;
    assert.equal(settings.typos.weight, 0);
    assert.equal(settings.synonyms.weight, 0);
    assert.equal(settings.semantic.weight, 0);
    assert.equal(settings.window, 0);
    assert.equal(settings.exactName, 0);
    assert.equal(settings.stuffing, 'off');
    assert.deepEqual(settings.health, DEFAULT_HEALTH);
  });

  it('reports every problem at once, and nothing usable when one is wrong', () => {
    const result = validateRanking({ fields: { phrase_text: -1 }, price: {}, recency: {} }, { k1: 99 });
    assert.equal(result.settings, undefined);
    assert.ok(result.problems.length >= 6, result.problems.join('\n'));
    assert.ok(result.problems.includes('bm25.k1=99: must be a number >= 0 and <= 10'));
    assert.deepEqual(validateRanking(null, {}).problems[0], '_meta.ranking: missing or not an object');
  });

  it('the window is bounded by Elasticsearch\'s max rescore window', () => {
    assert.equal(problemsOf((raw) => { raw.window = 10_001; }).length, 1);
    assert.deepEqual(problemsOf((raw) => { raw.window = 10_000; }), []);
  });

  it('semantic.preFilterMaxShare: a share of the catalog (0.05..1); an index made before it keeps every filter inside (1)', () => {
    assert.equal(shippedRanking().semantic.preFilterMaxShare, 0.3);
    assert.equal(problemsOf((raw) => { raw.semantic.preFilterMaxShare = 0; }).length, 1);
    assert.equal(problemsOf((raw) => { raw.semantic.preFilterMaxShare = 1.5; }).length, 1);
    const raw = shippedRaw();
    delete (raw.semantic as Record<string, unknown>).preFilterMaxShare;
    assert.equal(validateRanking(raw, {}).settings!.semantic.preFilterMaxShare, 1);
  });
});
