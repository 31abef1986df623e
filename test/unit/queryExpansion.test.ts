import assert from 'node:assert/strict';
import { MAX_EXPANSIONS, expandQuery, synonymExpansions, withIdentifierWords } from '../../src/search/queryExpansion.js';

describe('unit: query expansion (identifier words, synonyms)', () => {
  it('adds the words inside snake_case, camelCase and path identifiers, and leaves plain words alone', () => {
    assert.equal(withIdentifierWords('get_weather_forecast'), 'get_weather_forecast get weather forecast');
    assert.equal(withIdentifierWords('getWeatherForecast now'), 'getWeatherForecast now get weather forecast');
    assert.equal(withIdentifierWords('/v1/geo-code'), '/v1/geo-code v1 geo geographic geolocation code');
    assert.equal(withIdentifierWords('coords_to_place'), 'coords_to_place coords coordinates to place', 'abbreviations get their long form');
    assert.equal(withIdentifierWords('reverse geocode coords'), 'reverse geocode coords coordinates', 'a typed abbreviation too');
    assert.equal(withIdentifierWords('reverse geocode coordinates'), 'reverse geocode coordinates coord coords', 'and the other way round');
    assert.equal(withIdentifierWords('weather in paris'), 'weather in paris');
  });

  const groups = [
    ['speech to text', 'transcription', 'speech recognition'],
    ['sms', 'text message'],
  ];

  it("a query containing one phrase of a group gets the group's other phrases, as whole words", () => {
    assert.deepEqual(synonymExpansions('cheap speech to text api', groups), ['transcription', 'speech recognition']);
    assert.deepEqual(synonymExpansions('send text messages', groups), ['sms'], 'plural-insensitive');
    assert.deepEqual(synonymExpansions('SMS', groups), ['text message'], 'case-insensitive');
    assert.deepEqual(synonymExpansions('smsgateway', groups), [], 'no match inside a word');
    assert.deepEqual(synonymExpansions('speech', groups), [], 'a partial phrase does not match');
  });

  it('matches the list inflection-insensitively, and keeps each group apart', () => {
    const verbs = [['transcribe', 'transcription'], ['translate', 'translation']];
    assert.deepEqual(synonymExpansions('transcribing podcasts', verbs), ['transcription']);
    assert.deepEqual(synonymExpansions('translated documents', verbs), ['translation']);
    assert.deepEqual(synonymExpansions('transit', verbs), [], 'a word that only shares a prefix does not match');
    const { groups: matched, looseWords } = expandQuery('cheap speech to text api and sms', groups);
    assert.deepEqual(matched, [
      { typed: ['speech to text'], synonyms: ['transcription', 'speech recognition'] },
      { typed: [], synonyms: ['text message'] },
    ]);
    assert.equal(looseWords, 'cheap api and sms', 'a typed phrase is searched as a phrase, not as loose words');
  });

  it('phrases already typed are not repeated, and expansions are bounded', () => {
    assert.deepEqual(synonymExpansions('transcription speech to text', groups), ['speech recognition']);
    const big = [Array.from({ length: 12 }, (_, i) => `word${i}`)];
    assert.equal(synonymExpansions('word0', big).length, MAX_EXPANSIONS);
  });

  it('an operator\'s new list is matched as written, although each list is folded only once', () => {
    const before = [['speech to text', 'transcription']];
    assert.deepEqual(synonymExpansions('speech to text api', before), ['transcription']);
    assert.deepEqual(synonymExpansions('speech to text api', before), ['transcription'], 'the same list, folded once, answers the same');
    const after = [['speech to text', 'dictation']];
    assert.deepEqual(synonymExpansions('speech to text api', after), ['dictation']);
    assert.deepEqual(synonymExpansions('speech to text api', []), []);
  });
});

describe('unit: textQuality (stuffing share)', () => {
  it('ordinary text scores 1; a word used a third time and more counts as stuffing', async () => {
    const { textQuality } = await import('../../src/catalog/keywords.js');
    assert.equal(textQuality('Weather forecast', 'Hourly and daily weather forecasts for any city.'), 1);
    assert.equal(textQuality('Translate Translation Translate Free Translate', 'translate translate online translate now'), 0.6, '4 of 10 words are a third use or more');
    assert.equal(textQuality(undefined, ''), 1);
  });
});
