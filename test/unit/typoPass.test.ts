import assert from 'node:assert/strict';
import { editBudget, respelled, TypoPass, type Vocabulary } from '../../src/search/typoPass.js';
import { englishWords } from '../../src/search/englishWords.js';

/**
 * A vocabulary of fixed words that counts its look-ups; a misspelling is corrected from `corrections`
 * (typed word -> the catalog's word), word by word, as the suggester does.
 */
function vocabulary(words: string[] | Record<string, number>, corrections: Record<string, string> = {}): Vocabulary & { lookups: number; spellings: number; fail: boolean; failSpelling: boolean } {
  const counts = new Map(Array.isArray(words) ? words.map((w) => [w, 10] as const) : Object.entries(words));
  const known = new Set(counts.keys());
  return {
    lookups: 0,
    spellings: 0,
    fail: false,
    failSpelling: false,
    async listingCounts(text: string) {
      this.lookups += 1;
      if (this.fail) throw new Error('index unavailable');
      return new Map(text.split(' ').map((w) => [w, counts.get(w) ?? 0]));
    },
    async closestKnownWords(text: string) {
      this.spellings += 1;
      if (this.failSpelling) throw new Error('index unavailable');
      const found = [];
      let offset = 0;
      for (const word of text.split(' ')) {
        const replacement = corrections[word];
        if (!known.has(word) && replacement !== undefined) found.push({ offset, length: word.length, replacement });
        offset += word.length + 1;
      }
      return found;
    },
  };
}

describe('unit: the typo pass only for queries with an unknown word', () => {
  it('is needed when a word is in no listing, not when every word is', async () => {
    const pass = new TypoPass(vocabulary(['weather', 'forecast']), englishWords());
    assert.deepEqual(await pass.check('weather forecast'), { needed: false });
    assert.deepEqual(await pass.check('wether forecast'), { needed: true });
  });

  it('looks a query up once a minute (case and spacing normalised), then again', async () => {
    let now = 0;
    const words = vocabulary(['weather']);
    const pass = new TypoPass(words, englishWords(), () => now);
    await pass.check('Weather');
    await pass.check('  weather ');
    assert.equal(words.lookups, 1);
    now = 61_000;
    await pass.check('weather');
    assert.equal(words.lookups, 2);
  });

  it('keeps the pass when the look-up fails', async () => {
    const words = vocabulary(['weather']);
    words.fail = true;
    assert.deepEqual(await new TypoPass(words, englishWords()).check('weather'), { needed: true });
  });
});

describe('unit: a query of rare words names something', () => {
  it('gives the words when every one is in 1 to rareWithin listings and none is an English word, and only when asked', async () => {
    const pass = new TypoPass(vocabulary({ pricetrail: 1, history: 40, ojlgpiom: 1, zorblex: 3, speech: 2, text: 2, pdf: 1, docx: 1, to: 50 }), englishWords());
    assert.deepEqual(await pass.check('pricetrail', { rareWithin: 3 }), { needed: false, rareWords: ['pricetrail'] });
    assert.deepEqual(await pass.check('ojlgpiom zorblex', { rareWithin: 3 }), { needed: false, rareWords: ['ojlgpiom', 'zorblex'] });
    assert.deepEqual(await pass.check('pricetrail', {}), { needed: false });
    // A common word among them: the query describes more than it names.
    assert.deepEqual(await pass.check('pricetrail history', { rareWithin: 3 }), { needed: false });
    assert.deepEqual(await pass.check('zorblex', { rareWithin: 2 }), { needed: false });
    // English words describe a need, however few listings use them; a direction is not a name.
    assert.deepEqual(await pass.check('speech text', { rareWithin: 3 }), { needed: false });
    assert.deepEqual(await pass.check('ojlgpiom to zorblex', { rareWithin: 60 }), { needed: false });
    // A word in no listing is a typo to correct, not a name to find.
    assert.deepEqual(await pass.check('pricetrial', { rareWithin: 3 }), { needed: true });
  });

  it('never when the look-up failed', async () => {
    const words = vocabulary({ pricetrail: 1 });
    words.fail = true;
    assert.deepEqual(await new TypoPass(words, englishWords()).check('pricetrail', { rareWithin: 3 }), { needed: true });
  });
});

describe('unit: a misspelled query read as the catalog spells it', () => {
  it('gives the corrected query only when asked, and only for a query with an unknown word', async () => {
    const words = vocabulary(['speech', 'recognition'], { speach: 'speech' });
    const pass = new TypoPass(words, englishWords());
    assert.deepEqual(await pass.check('Speach recognition'), { needed: true }, 'not asked: no spelling look-up');
    assert.equal(words.spellings, 0);
    assert.deepEqual(await pass.check('speach  recognition', { spelling: editBudget('AUTO:5,9') }), { needed: true, spelled: 'speech recognition' });
    assert.deepEqual(await pass.check('speech recognition', { spelling: editBudget('AUTO:5,9') }), { needed: false }, 'a known query is never respelled');
    assert.equal(words.spellings, 1);
  });

  it('reads a long query as typed without asking for its spelling (the suggester pays per word)', async () => {
    const words = vocabulary(['weather'], { wether: 'weather' });
    const pass = new TypoPass(words, englishWords());
    assert.deepEqual(await pass.check('wether in the north of the country this coming long weekend', { spelling: editBudget('AUTO:5,9') }), { needed: true });
    assert.equal(words.spellings, 0);
  });

  it('looks the spelling up once per query while the verdict is fresh, and remembers that nothing is close', async () => {
    const words = vocabulary(['weather'], {});
    const pass = new TypoPass(words, englishWords());
    assert.deepEqual(await pass.check('xqzt weather', { spelling: editBudget('AUTO:5,9') }), { needed: true });
    assert.deepEqual(await pass.check('XQZT weather', { spelling: editBudget('AUTO:5,9') }), { needed: true });
    assert.equal(words.spellings, 1);
  });

  it('reads the query as typed when the spelling look-up fails, and tries again on the next search', async () => {
    const words = vocabulary(['weather'], { wether: 'weather' });
    words.failSpelling = true;
    const pass = new TypoPass(words, englishWords());
    assert.deepEqual(await pass.check('wether', { spelling: editBudget('AUTO:5,9') }), { needed: true });
    words.failSpelling = false;
    assert.deepEqual(await pass.check('wether', { spelling: editBudget('AUTO:5,9') }), { needed: true, spelled: 'weather' });
    assert.equal(words.lookups, 1, 'the verdict itself stays cached');
  });
});

describe('unit: the edit budget is the fuzzy pass\'s fuzziness', () => {
  it('reads AUTO bands, fixed edits and none', () => {
    assert.deepEqual(editBudget('AUTO:5,9'), [{ minLength: 5, maxEdits: 1 }, { minLength: 9, maxEdits: 2 }]);
    assert.deepEqual(editBudget('AUTO'), [{ minLength: 3, maxEdits: 1 }, { minLength: 6, maxEdits: 2 }]);
    assert.deepEqual(editBudget('1'), [{ minLength: 1, maxEdits: 1 }]);
    assert.deepEqual(editBudget('0'), []);
  });

  it('asks for no spelling with an empty budget', async () => {
    const words = vocabulary(['weather'], { wether: 'weather' });
    assert.deepEqual(await new TypoPass(words, englishWords()).check('wether', { spelling: editBudget('0') }), { needed: true });
    assert.equal(words.spellings, 0);
  });
});

describe('unit: only misspellings are respelled, never words the buyer meant', () => {
  const words = englishWords();
  const at = (text: string, word: string, replacement: string) => ({ offset: text.indexOf(word), length: word.length, replacement });

  it('replaces a word that is no English word by the catalog\'s closest one, keeping the rest as typed', () => {
    const text = 'speach recognition for reciept scans';
    assert.equal(respelled(text, [at(text, 'speach', 'speech'), at(text, 'reciept', 'receipt')], words), 'speech recognition for receipt scans');
  });

  it('keeps English words no listing uses, and codes with digits', () => {
    const text = 'where can i park near the stadium';
    assert.equal(respelled(text, [at(text, 'park', 'part'), at(text, 'stadium', 'status')], words), undefined);
    const aloud = 'read this article aloud as an mp3';
    assert.equal(respelled(aloud, [at(aloud, 'aloud', 'cloud'), at(aloud, 'mp3', 'mp4')], words), undefined);
    assert.ok(words.isWord('parking') && words.isWord('recipes'), 'inflected words are words');
    assert.ok(!words.isWord('recipies'));
    assert.ok(words.isWord('lisbon') && words.isWord('nasa'), 'a lower-cased proper noun or acronym is a word');
  });
});
