/**
 * Which typed words are English words (Hunspell's en_US dictionary through nspell: the dictionary
 * Elasticsearch's stemmer uses, with its affix rules, so "parking" and "recipes" are words and
 * "recipies" is not). A word no listing has is a misspelling only when it is no English word either:
 * "park", "aloud" or "stadium" are what the buyer meant even when no seller writes them, and
 * replacing them with the catalog's nearest spelling ("part", "cloud") changes the question.
 */
import dictionary from 'dictionary-en';
import nspell from 'nspell';

export interface WordList {
  isWord(word: string): boolean;
}

let shared: WordList | undefined;

/** The dictionary, parsed once per process (about 0.2 s and 30 MB) on first use. */
export function englishWords(): WordList {
  if (!shared) {
    // The package hands Node Buffers typed as Uint8Array; a view of the same bytes, no copy.
    const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const spell = nspell({ aff: view(dictionary.aff), dic: view(dictionary.dic) });
    // Queries arrive lower-cased (search/typoPass.ts): a proper noun is a word in any case ("lisbon").
    shared = { isWord: (word) => spell.correct(word) || spell.correct(word.charAt(0).toUpperCase() + word.slice(1)) || spell.correct(word.toUpperCase()) };
  }
  return shared;
}
