import assert from 'node:assert/strict';
import { directionsIn, oppositesOf, queryDirections, spellingsOf } from '../../src/search/queryDirections.js';
import { expandQuery, withIdentifierWords } from '../../src/search/queryExpansion.js';

describe('unit: word order that carries meaning (query directions)', () => {
  it('finds "A to B" and "A into B", stop words between included, and nothing in a query without one', () => {
    assert.deepEqual(directionsIn('speech to text'), [{ from: 'speech', to: 'text', phrase: 'speech to text' }]);
    assert.deepEqual(directionsIn('convert lat/long to a street address'), [{ from: 'long', to: 'street', phrase: 'long to a street' }]);
    assert.deepEqual(directionsIn('turn Markdown into HTML'), [{ from: 'markdown', to: 'html', phrase: 'markdown into html' }]);
    assert.deepEqual(directionsIn('reverse geocode coordinates'), []);
    assert.deepEqual(directionsIn('how far can I drive in 30 minutes'), []);
    assert.deepEqual(directionsIn('send to'), [], 'no second word');
  });

  it('the opposite of "A to B" is "B to A" (unless it reads "B from A", the same direction) or "A from B"', () => {
    assert.deepEqual(oppositesOf({ from: 'image', to: 'text', phrase: 'image to text' }), {
      reversed: 'text to image', sameDirection: 'text from image', fromReversed: 'image from text',
    });
  });

  it('a direction is also read in the abbreviations identifiers use (address_to_coords)', () => {
    const phrases = spellingsOf({ from: 'coordinates', to: 'address', phrase: 'coordinates to address' }).map((d) => d.phrase);
    assert.deepEqual(phrases, ['coordinates to address', 'coord to address', 'coords to address', 'coordinates to addr']);
    assert.deepEqual(spellingsOf({ from: 'speech', to: 'text', phrase: 'speech to text' }).length, 1, 'no abbreviation: the direction alone');
  });

  it("takes the query's directions and its synonym phrases', once each", () => {
    const directions = queryDirections('transcription', ['speech to text', 'voice to text', 'speech to text']);
    assert.deepEqual(directions.map((d) => d.phrase), ['speech to text', 'voice to text']);
  });
});

describe('unit: synonyms match the longest phrase, abbreviations both ways', () => {
  const groups = [
    ['geocode', 'geocoding', 'address to coordinates'],
    ['reverse geocode', 'coordinates to address'],
  ];

  it('a phrase inside a longer typed phrase of the list does not bring in its group', () => {
    const { groups: matched } = expandQuery('reverse geocoding api', groups);
    assert.deepEqual(matched, [{ typed: ['reverse geocode', 'reverse geocoding'], synonyms: ['coordinates to address'] }]);
    assert.deepEqual(expandQuery('geocode', groups).groups, [{ typed: [], synonyms: ['address to coordinates'] }]);
  });

  it('an abbreviation gets its long form and a long form its abbreviations, typed or inside an identifier', () => {
    assert.equal(withIdentifierWords('coords_to_place'), 'coords_to_place coords coordinates to place');
    assert.equal(withIdentifierWords('txHistory'), 'txHistory tx transaction history');
    assert.equal(withIdentifierWords('street address'), 'street address addr');
    assert.equal(withIdentifierWords('weather'), 'weather');
  });
});

describe('unit: the direction tunables and the kNN clause they wrap', () => {
  it('an index without them reads direction as off; out-of-range values are refused', async () => {
    const { shippedRanking, validateRanking } = await import('../../src/search/rankingSettings.js');
    const { direction: _shipped, ...older } = JSON.parse(JSON.stringify(shippedRanking())) as Record<string, unknown>;
    assert.deepEqual(validateRanking(older, {}).settings?.direction, { phraseBoost: 0, opposite: 1, field: 'phrase_text' });
    assert.deepEqual(validateRanking({ ...older, direction: { phraseBoost: 3, opposite: 0.1, field: 'title_words' } }, {}, new Set(['phrase_text', 'keywords.stemmed', 'direction_text'])).problems, ['direction.field="title_words": not a text field of the index']);
    assert.deepEqual(validateRanking({ ...older, direction: { phraseBoost: 3, opposite: 2 } }, {}).problems, ['direction.opposite=2: must be a number >= 0 and <= 1']);
  });

  it('a directional query wraps the kNN clause in a boosting query; a query without direction leaves it alone', async () => {
    const { textQuery } = await import('../../src/search/textQuery.js');
    const { shippedRanking } = await import('../../src/search/rankingSettings.js');
    const semantic = { vector: [0.1, 0.2], filter: [], postFilter: [], widen: 1 };
    const clauses = (q: string) => ((textQuery(q, shippedRanking(), semantic) as { bool: { should: Record<string, unknown>[] } }).bool.should);
    const boosting = (clauses('markdown to html').find((c) => 'boosting' in c) as { boosting: { negative_boost: number; positive: object } } | undefined)?.boosting;
    assert.ok(boosting && JSON.stringify(boosting.positive).startsWith('{"function_score":{"query":{"knn"'), 'the weighted kNN clause is the positive side');
    assert.equal(boosting.negative_boost, shippedRanking().direction.opposite);
    assert.ok(clauses('markdown to html').some((c) => JSON.stringify(c).includes('"query":"markdown to html"')), 'the typed direction is an exact phrase');
    assert.ok(clauses('weather forecast').some((c) => JSON.stringify(c).includes('"knn"')) && !clauses('weather forecast').some((c) => 'boosting' in c));
  });

  it('where "to" and "from" are words, "A from B" states the opposite of "A to B" and "B from A" the same', async () => {
    const { statedDirections, hasConnector } = await import('../../src/search/queryDirections.js');
    const d = { from: 'speech', to: 'text', phrase: 'speech to text' };
    assert.deepEqual(statedDirections(d), {
      same: ['speech to text', 'speech into text', 'text from speech'],
      opposite: ['text to speech', 'text into speech', 'speech from text'],
      roles: ['from text', 'text to', 'text into', 'to speech', 'into speech', 'speech from'],
    });
    assert.ok(hasConnector('speech to text') && hasConnector('text from images') && hasConnector('photo_into_sketch'));
    assert.ok(!hasConnector('speech recognition') && !hasConnector('tomorrow'));
  });
});
