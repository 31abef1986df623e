/**
 * A task in words split into its needs (issue 45): "Check the weather in Lisbon tomorrow and
 * convert 20 euros to dollars" asks for two listings, a forecast and a currency converter, and
 * shares few words with either as a whole. Each need is searched on its own (search/needSearch.ts)
 * so that the first page can answer every one of them.
 *
 * The split is on the surface of the text, no model: sentences, `;`, a dash between words, a
 * colon, `+`, and inside a sentence the joints where a new clause starts (", and ...", "then
 * ...", "also ...", ", what ...", "and is ...": a connective or a comma followed by a word that
 * opens a question or an order). Pieces too small to be a need ("for 6 people") stay with the
 * piece before them. A short query (fewer than MIN_TASK_WORDS words) is never split: a keyword
 * query ranks exactly as before.
 */
import { STOP_WORDS } from '../core/stopWords.js';

/** Below this many words a query is one need (keyword queries, short questions). */
export const MIN_TASK_WORDS = 9;
/** At most this many needs; the rest joins the last one (the judged tasks name one to three). */
export const MAX_NEEDS = 4;
/** A piece with fewer content words than this is not a need of its own. */
const MIN_NEED_WORDS = 2;

/** Words that open a clause of their own after "and" or a comma: a question, an order, a connective. */
const CLAUSE_OPENERS = new Set(
  (
    'what which how is are was do does did can could will would should whether where when who whose any ' +
    'find get give tell check send show make book list run plot compute calculate translate email create generate ' +
    'produce put quote verify flag pull convert look search scan extract summarize summarise draft write call remind ' +
    'notify text alert track monitor buy order rent reserve screen vet validate estimate work add turn cut upscale ' +
    'also plus then please i we my our need want'
  ).split(' '),
);

/** Sentence-level joints: end of sentence (not after a short abbreviation such as "St."), `;`, a spaced dash, `: `, ` + `. */
const SENTENCE_JOINTS = /(?<=[^\s.]{3}[.!?])\s+(?=\S)|(?<=[!?])\s+|;\s*|\s[-\u2013\u2014]\s|:\s+|\s\+\s/u;
/** Connectives that always start a new need inside a sentence. */
const CONNECTIVES = /,?\s+(?:and then|and also|as well as|then|also|plus)\s+|,\s+and\s+/iu;

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const contentWords = (text: string) => wordsOf(text).filter((w) => !STOP_WORDS.has(w) && !/^\d+$/.test(w));

/** Splits a sentence at ", X" and " and X" where X opens a clause. */
function clauses(sentence: string): string[] {
  const out: string[] = [];
  for (const piece of sentence.split(CONNECTIVES)) {
    let start = 0;
    const joint = /(,\s+|\s+and\s+)(\p{L}+)/giu;
    for (let m = joint.exec(piece); m; m = joint.exec(piece)) {
      if (!CLAUSE_OPENERS.has(m[2]!.toLowerCase())) continue;
      out.push(piece.slice(start, m.index));
      start = m.index + m[1]!.length;
    }
    out.push(piece.slice(start));
  }
  return out;
}

const tidy = (text: string) => text.replace(/^[\s,.;:!?\-\u2013\u2014]+|[\s,;:\-\u2013\u2014]+$/gu, '').trim();

/**
 * The needs of a task query, in the order the query names them; a single element (the query as
 * typed) when it is short or has no joint. Deterministic and pure.
 */
export function splitNeeds(q: string): string[] {
  if (wordsOf(q).length < MIN_TASK_WORDS) return [q];
  const pieces = q.split(SENTENCE_JOINTS).flatMap(clauses).map(tidy).filter((p) => p !== '');
  const needs: string[] = [];
  for (const piece of pieces) {
    const small = contentWords(piece).length < MIN_NEED_WORDS;
    if (small && needs.length > 0) needs[needs.length - 1] = `${needs[needs.length - 1]} ${piece}`;
    else needs.push(piece);
  }
  // A small first piece ("Quick question") joins the need after it.
  if (needs.length > 1 && contentWords(needs[0]!).length < MIN_NEED_WORDS) needs.splice(0, 2, `${needs[0]} ${needs[1]}`);
  if (needs.length > MAX_NEEDS) needs.splice(MAX_NEEDS - 1, needs.length, needs.slice(MAX_NEEDS - 1).join(' '));
  return needs.length > 1 ? needs : [q];
}

/** A listing of the first page, and the need it was picked for. */
export interface NeedPick {
  id: string;
  need: number;
}

/**
 * The first `size` results of a task (diversity by need, not by listing): need by need in the
 * order written, each need's best listing not yet picked, then each need's next best, and so on.
 * A need whose own best listing was already picked for an earlier need is covered by it and gives
 * up its first turn. `lists[i]`: need i's listing ids, best first.
 */
export function coverNeeds(lists: readonly (readonly string[])[], size: number): NeedPick[] {
  const picked: NeedPick[] = [];
  const taken = new Set<string>();
  const next = lists.map(() => 0);
  for (let round = 0; picked.length < size; round++) {
    let added = false;
    lists.forEach((list, need) => {
      if (picked.length >= size) return;
      if (round === 0 && list[0] !== undefined && taken.has(list[0])) return;
      while (next[need]! < list.length && taken.has(list[next[need]!]!)) next[need]!++;
      const id = list[next[need]!];
      if (id === undefined) return;
      next[need]!++;
      taken.add(id);
      picked.push({ id, need });
      added = true;
    });
    if (!added && round > 0) break;
  }
  return picked;
}
