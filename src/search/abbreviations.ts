/**
 * Abbreviations common in identifiers and the words a buyer types for them: a tool named
 * `coords_to_place` is found by "coordinates", `txHistory` by "transaction", and a buyer typing
 * `addr` finds "address". Applied to the query only (search/queryExpansion.ts), in both
 * directions, so listings are stored as written and no index needs rebuilding for a new entry.
 * General programming and API shorthand only: a word of one domain belongs in the synonym list.
 */
import { foldInflection } from './inflection.js';

/**
 * A Map, never a plain object: the query's words are looked up in it, and a plain object answers
 * `constructor` or `toString` with Object.prototype's members (issue 43: `q=constructor` was a 500).
 */
const SHORT_TO_LONG: ReadonlyMap<string, readonly string[]> = new Map(Object.entries({
  acct: ['account'], addr: ['address'], amt: ['amount'], auth: ['authentication'], bal: ['balance'],
  calc: ['calculate', 'calculator'], coord: ['coordinate'], coords: ['coordinates'], curr: ['currency'], db: ['database'],
  dest: ['destination'], dist: ['distance'], doc: ['document'], docs: ['documents'], dst: ['destination'],
  geo: ['geographic', 'geolocation'], img: ['image'], imgs: ['images'], info: ['information'], lang: ['language'],
  lat: ['latitude'], lng: ['longitude'], lon: ['longitude'], loc: ['location'], msg: ['message'], msgs: ['messages'],
  num: ['number'], pic: ['picture'], pwd: ['password'], qty: ['quantity'], src: ['source'], temp: ['temperature'],
  tx: ['transaction'], txn: ['transaction'], txs: ['transactions'], tz: ['timezone'], vid: ['video'],
}));

/** Inflection-folded long form -> its abbreviations ("coordinates" and "coordinate" -> coord, coords). */
const LONG_TO_SHORT = new Map<string, string[]>();
for (const [short, longs] of SHORT_TO_LONG) {
  for (const long of longs) {
    const key = foldInflection(long);
    LONG_TO_SHORT.set(key, [...(LONG_TO_SHORT.get(key) ?? []), short]);
  }
}

/** A lower-case word's long form if it is an abbreviation ("coords" -> "coordinates"), else the word. */
export function longForm(word: string): string {
  return SHORT_TO_LONG.get(word)?.[0] ?? word;
}

/** The other spellings of a lower-case word: its long forms if it is an abbreviation, its abbreviations if it is a long form. */
export function otherSpellings(word: string): readonly string[] {
  return SHORT_TO_LONG.get(word) ?? LONG_TO_SHORT.get(foldInflection(word)) ?? [];
}
