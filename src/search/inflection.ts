/** Inflection folding shared by the query's synonym and abbreviation matching. */

/**
 * A light inflection fold for matching the synonym list against a query (the index's hunspell
 * stemmer is not reachable from here without a round trip): plural s, -ing, -ed and a final e,
 * so "transcribing", "transcribed" and "transcribe" meet, as do "messages" and "message".
 */
export function foldInflection(word: string): string {
  let w = word;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 5 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}
