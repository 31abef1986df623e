import assert from 'node:assert/strict';
import { TypoPass, type Vocabulary } from '../../src/search/typoPass.js';

/** A vocabulary of fixed words that counts its look-ups. */
function vocabulary(words: string[]): Vocabulary & { lookups: number; fail: boolean } {
  const known = new Set(words);
  return {
    lookups: 0,
    fail: false,
    async knowsEveryWord(text: string) {
      this.lookups += 1;
      if (this.fail) throw new Error('index unavailable');
      return text.split(' ').every((w) => known.has(w));
    },
  };
}

describe('unit: the typo pass only for queries with an unknown word', () => {
  it('is needed when a word is in no listing, not when every word is', async () => {
    const pass = new TypoPass(vocabulary(['weather', 'forecast']));
    assert.equal(await pass.neededFor('weather forecast'), false);
    assert.equal(await pass.neededFor('wether forecast'), true);
  });

  it('looks a query up once a minute (case and spacing normalised), then again', async () => {
    let now = 0;
    const words = vocabulary(['weather']);
    const pass = new TypoPass(words, () => now);
    await pass.neededFor('Weather');
    await pass.neededFor('  weather ');
    assert.equal(words.lookups, 1);
    now = 61_000;
    await pass.neededFor('weather');
    assert.equal(words.lookups, 2);
  });

  it('keeps the pass when the look-up fails', async () => {
    const words = vocabulary(['weather']);
    words.fail = true;
    assert.equal(await new TypoPass(words).neededFor('weather'), true);
  });
});
