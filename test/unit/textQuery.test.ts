import assert from 'node:assert/strict';
import { textQuery } from '../../src/search/textQuery.js';
import { shippedRanking, type RankingSettings } from '../../src/search/rankingSettings.js';

type Json = Record<string, unknown>;
const should = (query: Json) => (query.bool as { should: Json[]; minimum_should_match: number }).should;
const kinds = (query: Json) => should(query).map((clause) => Object.keys(clause)[0]);
const phrases = (query: Json) =>
  JSON.stringify(query).match(/"match_phrase":\{"(?:phrase|direction)_text":\{"query":"[^"]+","boost":[\d.]+,"slop":\d\}/g) ?? [];
/** The kNN clause, inside the function_score that carries its weight (search/semanticFusion.ts). */
const knnIn = (clause: Json | undefined): Json | undefined => {
  const inner = (clause?.function_score as { query?: Json } | undefined)?.query ?? clause;
  return inner?.knn as Json | undefined;
};
const hasKnn = (query: Json) => should(query).some((c) => knnIn(c) !== undefined);
/** The phrase a match_phrase clause searches, whichever field holds it. */
const phraseOf = (clause: Json) => Object.values(clause.match_phrase as Record<string, { query: string; boost: number }>)[0]!;

describe('unit: text relevance query', () => {
  const shipped = shippedRanking();
  const with_ = (change: Partial<RankingSettings>): RankingSettings => ({ ...shipped, ...change });

  it('matches when any clause does: a listing with one typed word is still found', () => {
    const query = textQuery('weather forecast', shipped);
    assert.equal((query.bool as { minimum_should_match: number }).minimum_should_match, 1);
    const [words] = should(query) as [{ multi_match: { query: string; type: string; fields: string[] } }];
    assert.equal(words.multi_match.query, 'weather forecast');
    assert.equal(words.multi_match.type, 'cross_fields');
    assert.deepEqual(words.multi_match.fields, ['phrase_text^1']);
  });

  it('a field boosted 0 is not searched at all', () => {
    const query = textQuery('weather', with_({ fields: { phrase_text: 1, 'keywords.stemmed': 0, 'describe.title': 0 } }));
    assert.deepEqual((should(query)[0] as { multi_match: { fields: string[] } }).multi_match.fields, ['phrase_text^1']);
  });

  it('the typo pass is a fuzzy match weighing less than the typed words, sent only when asked and weighted', () => {
    const fuzzy = should(textQuery('wether', shipped))[1] as { multi_match: { fuzziness: string; boost: number; prefix_length: number } };
    assert.equal(fuzzy.multi_match.fuzziness, 'AUTO:5,9');
    assert.ok(fuzzy.multi_match.boost < 1, 'a typo match weighs less than an exact one');
    assert.equal(fuzzy.multi_match.prefix_length, 1, 'the first letter is never a typo: bounded expansion');
    assert.ok(!JSON.stringify(textQuery('wether', shipped, undefined, { typoPass: false })).includes('fuzziness'));
    assert.ok(!JSON.stringify(textQuery('wether', with_({ typos: { weight: 0, fuzziness: 'AUTO', spelling: 'typed' } }))).includes('fuzziness'));
  });

  it('a query the catalog spells otherwise is searched as spelled, its typo pass on the words as typed', () => {
    const query = textQuery('reciept scanner', shipped, undefined, { spelled: 'receipt scanner' });
    const [words, fuzzy] = should(query) as [{ multi_match: { query: string } }, { multi_match: { query: string; fuzziness: string } }];
    assert.equal(words.multi_match.query, 'receipt scanner');
    assert.equal(fuzzy.multi_match.query, 'reciept scanner');
    assert.equal(fuzzy.multi_match.fuzziness, 'AUTO:5,9');
    // The spelled query's synonym phrases and directions too ("speach to text" is "speech to text").
    assert.ok(phrases(textQuery('speach to text', shipped, undefined, { spelled: 'speech to text' })).some((p) => p.includes('"query":"speech to text"')));
    // Kept apart from the same query read as typed.
    assert.equal((should(textQuery('reciept scanner', shipped))[0] as { multi_match: { query: string } }).multi_match.query, 'reciept scanner');
  });

  it('identifier queries also search their words', () => {
    const [words] = should(textQuery('get_weather_forecast', shipped)) as [{ multi_match: { query: string } }];
    assert.equal(words.multi_match.query, 'get_weather_forecast get weather forecast');
  });

  it('a typed synonym phrase is searched as a phrase, its synonyms at a lower weight, one group counting once', () => {
    const query = textQuery('speech to text api', shipped);
    const group = should(query).find((clause) => 'dis_max' in clause) as { dis_max: { queries: Json[] } };
    assert.ok(group, 'the group is one dis_max: repeating synonyms buys nothing');
    const typed = group.dis_max.queries.find((q) => phraseOf(q).query === 'speech to text')!;
    const synonym = group.dis_max.queries.find((q) => phraseOf(q).query === 'transcription')!;
    assert.ok(phraseOf(typed).boost > phraseOf(synonym).boost);
  });

  it('a phrase with a connector is matched where "to" is a word (direction.field), the others on the phrase field', () => {
    const all = phrases(textQuery('speech to text api', shipped));
    assert.ok(all.some((p) => p.startsWith('"match_phrase":{"direction_text":{"query":"speech to text"')), all.join(' '));
    assert.ok(all.some((p) => p.startsWith('"match_phrase":{"direction_text":{"query":"voice to text"')));
    assert.ok(all.some((p) => p.startsWith('"match_phrase":{"phrase_text":{"query":"speech recognition"')));
    const older = with_({ direction: { ...shipped.direction, field: 'phrase_text' } });
    assert.ok(phrases(textQuery('speech to text api', older)).every((p) => p.startsWith('"match_phrase":{"phrase_text"')), 'an index made before: as it was');
  });

  it('a phrase with a stop word matches exactly (slop 0), so "text to speech" never finds "speech to text"', () => {
    const all = phrases(textQuery('text to speech', shipped)).join(' ');
    assert.match(all, /"query":"text to speech","boost":3,"slop":0/);
    assert.match(all, /"query":"speech synthesis","boost":[\d.]+,"slop":1/, 'a phrase without stop word allows one word between');
  });

  it('synonyms off: no synonym phrase; the typed direction stays an exact phrase unless direction is off too', () => {
    const synonymsOff = with_({ synonyms: { ...shipped.synonyms, weight: 0 } });
    const off = textQuery('speech to text', synonymsOff);
    assert.deepEqual(phrases(off), [`"match_phrase":{"direction_text":{"query":"speech to text","boost":${shipped.direction.phraseBoost},"slop":0}`]);
    assert.ok(!kinds(off).includes('dis_max'));
    assert.deepEqual(phrases(textQuery('speech to text', { ...synonymsOff, direction: { ...synonymsOff.direction, phraseBoost: 0, opposite: 1 } })), []);
  });

  it('an exact tool name scores as a constant bonus on the raw name, trimmed; off at 0', () => {
    const exact = should(textQuery('  get_weather ', shipped)).find((c) => 'constant_score' in c) as { constant_score: { filter: Json; boost: number } };
    assert.deepEqual(exact.constant_score.filter, { term: { 'name.raw': 'get_weather' } });
    assert.equal(exact.constant_score.boost, 25);
    assert.ok(!kinds(textQuery('get_weather', with_({ exactName: 0 }))).includes('constant_score'));
  });

  it('a query of rare words: the listings with every one of them gain rareWords.boost; only when the look-up said so, off at 0', () => {
    const bonus = (query: Json) => should(query).filter((c) => 'constant_score' in c).map((c) => (c as { constant_score: { filter: Json; boost: number } }).constant_score);
    const rare = bonus(textQuery('pricetrail acme', with_({ exactName: 0 }), undefined, { rareWords: ['acme', 'pricetrail'] }));
    assert.deepEqual(rare, [{ filter: { bool: { filter: [{ term: { phrase_text: 'acme' } }, { term: { phrase_text: 'pricetrail' } }] } }, boost: 40 }]);
    assert.deepEqual(bonus(textQuery('pricetrail acme', with_({ exactName: 0 }))), []);
    assert.deepEqual(bonus(textQuery('pricetrail acme', with_({ exactName: 0, rareWords: { boost: 0, maxListings: 10 } }), undefined, { rareWords: ['acme', 'pricetrail'] })), []);
  });

  it('semantic neighbours: a kNN clause with the read\'s filters and a similarity floor, only with a vector and a weight', () => {
    const semantic = { vector: [0.1, 0.2], filter: [{ term: { type: 'mcp' } }], postFilter: [], widen: 1 };
    const clause = should(textQuery('weather', shipped, semantic)).find((c) => knnIn(c) !== undefined)!;
    const knn = knnIn(clause)!;
    assert.deepEqual(knn.filter, semantic.filter);
    // The weight on a function_score around the clause, never on the clause with its similarity
    // floor: Elasticsearch then let block-max WAND skip the neighbours (search/semanticFusion.ts).
    assert.equal(knn.boost, undefined);
    assert.equal((clause.function_score as { boost: number }).boost, shipped.semantic.weight);
    assert.equal(knn.similarity, shipped.semantic.minSimilarity);
    assert.ok(shipped.semantic.minSimilarity > 0, 'an unrelated query does not drag in its k nearest');
    assert.ok((knn.num_candidates as number) >= (knn.k as number));
    assert.ok(!hasKnn(textQuery('weather', shipped)), 'no vector: no kNN');
    assert.ok(!hasKnn(textQuery('weather', with_({ semantic: { ...shipped.semantic, weight: 0 } }), semantic)));
  });

  it('num_candidates is never below k (Elasticsearch refuses the search otherwise)', () => {
    const settings = with_({ semantic: { ...shipped.semantic, weight: 1, k: 50, numCandidates: 10, minSimilarity: 0 } });
    const knn = knnIn(should(textQuery('weather', settings, { vector: [1], filter: [], postFilter: [], widen: 1 })).find((c) => knnIn(c) !== undefined))!;
    assert.equal(knn.num_candidates, 50);
  });
  describe('built once per query and tunables object', () => {
    it('the same query and tunables give the very same clauses; the typo verdict and a tunables change give their own', () => {
      const settings = with_({});
      const first = should(textQuery('speech to text api', settings));
      assert.equal(should(textQuery('speech to text api', settings)), first, 'kept');
      assert.ok(kinds(textQuery('speech to text api', settings, undefined, { typoPass: true })).includes('multi_match'));
      const withoutTypos = should(textQuery('speech to text api', settings, undefined, { typoPass: false }));
      assert.equal(withoutTypos.length, first.length - 1, 'no typo pass: one clause less');
      // An operator's change is a new tunables object (search/rankingCache.ts): it is read at once.
      const changed = with_({ exactName: 0 });
      assert.ok(!JSON.stringify(textQuery('speech to text api', changed)).includes('name.raw'));
      assert.ok(JSON.stringify(textQuery('speech to text api', settings)).includes('name.raw'));
    });

    it('the kept clauses cannot be edited by a caller (they are shared by every read of the query)', () => {
      const clauses = should(textQuery('weather forecast', with_({})));
      assert.throws(() => clauses.push({ match_all: {} }), TypeError);
      assert.throws(() => { (clauses[0] as { multi_match: { query: string } }).multi_match.query = 'other'; }, TypeError);
      assert.equal((should(textQuery('weather forecast', with_({})))[0] as { multi_match: { query: string } }).multi_match.query, 'weather forecast');
    });

    it('the semantic clause is added per read, after the kept ones', () => {
      const settings = with_({});
      const semantic = { vector: [0.1, 0.2], filter: [], postFilter: [], widen: 1 };
      const plain = should(textQuery('weather forecast', settings));
      const withMeaning = should(textQuery('weather forecast', settings, semantic));
      assert.equal(withMeaning.length, plain.length + 1);
      assert.deepEqual(withMeaning.slice(0, plain.length), plain);
      assert.ok(knnIn(withMeaning[plain.length]) !== undefined);
    });
  });
});
