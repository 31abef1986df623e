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
 * typed) when it is short or asks for one thing. A piece that only sets the scene ("We land in
 * Zurich on Friday", "My son has hay fever": `asksForSomething`) is no need of its own: it joins
 * the need after it ("We land in Zurich on Friday, train times"), or the one before it when it
 * comes last. A piece too small to ask for anything ("for 6 people") stays with the one before it.
 * Deterministic and pure.
 */
export function splitNeeds(q: string): string[] {
  if (wordsOf(q).length < MIN_TASK_WORDS) return [q];
  const pieces = q.split(SENTENCE_JOINTS).flatMap(clauses).map(tidy).filter((p) => contentWords(p).length > 0);
  if (pieces.length < 2) return [q];
  const asks = pieces.map((piece, i) => asksForSomething(piece) || (i > 0 && !sceneSetting(piece)) || (i === 0 && pieces.length < 3));
  const needs: string[] = [];
  let scene: string[] = [];
  pieces.forEach((piece, i) => {
    const small = contentWords(piece).length < MIN_NEED_WORDS && !asksForSomething(piece);
    if (small && needs.length > 0 && scene.length === 0) needs[needs.length - 1] = `${needs[needs.length - 1]} ${piece}`;
    else if (!asks[i] || small) scene.push(piece);
    else {
      needs.push([...scene, piece].join(' '));
      scene = [];
    }
  });
  if (scene.length > 0) {
    if (needs.length === 0) return [q];
    needs[needs.length - 1] = [needs[needs.length - 1], ...scene].join(' ');
  }
  if (needs.length > MAX_NEEDS) needs.splice(MAX_NEEDS - 1, needs.length, needs.slice(MAX_NEEDS - 1).join(' '));
  return needs.length > 1 ? needs : [q];
}

/** A statement about oneself ("I get seasick", "We take the ferry on Tuesday", "My son has hay fever"), not an ask. */
function sceneSetting(piece: string): boolean {
  const first = piece.toLowerCase().match(/\p{L}+/u)?.[0];
  return first !== undefined && ['i', 'we', 'my', 'our', 'im'].includes(first) && !asksForSomething(piece);
}

/** Words a piece asking for something starts with: a question, an order, a wish. */
const ASK_OPENERS = new Set(
  (
    'what which how is are was were do does did can could will would should whether where when who whose any anything ' +
    'find get give tell check send show make book list run plot compute calculate translate email create generate ' +
    'produce put quote verify flag pull convert look search scan extract summarize summarise draft write call remind ' +
    'notify text alert track monitor buy order rent reserve screen vet validate estimate work add turn cut upscale ' +
    'need want looking help please plan route transcribe design keep crawl pay transfer'
  ).split(' '),
);
/** After a subject, these make it a wish ("I need", "we want", "I'd like"). */
const WISH_WORDS = new Set('need needs want wants like love would must'.split(' '));

/**
 * Whether a piece asks for something ("what will the weather be", "find us a hotel", "I need a
 * transcript"), or only sets the scene ("We land in Zurich on Friday", "My son has hay fever").
 */
export function asksForSomething(piece: string): boolean {
  const words = piece.toLowerCase().replace(/[\u2019']/g, ' ').match(/\p{L}+/gu) ?? [];
  while (['and', 'also', 'then', 'so', 'but', 'plus'].includes(words[0] ?? '')) words.shift();
  const [first, second, third] = words;
  if (first === undefined) return false;
  if (ASK_OPENERS.has(first)) return true;
  if (['i', 'we', 'you'].includes(first)) return WISH_WORDS.has(second ?? '') || (['d', 'll'].includes(second ?? '') && WISH_WORDS.has(third ?? '')) || (second === 'm' && third === 'looking');
  return false;
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
