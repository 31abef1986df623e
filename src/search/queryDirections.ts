/**
 * Word order that carries meaning (docs/catalog-reads.md, "Ranking"): "speech to text" and "text
 * to speech" share every word and, for a sentence-embedding model, nearly every dimension. A
 * query's `A to B` (or `A into B`) names a direction; the query builder searches it as that exact
 * phrase and discounts the semantic score of listings that state the opposite. Pure functions.
 */
import { identifierWords } from '../catalog/keywords.js';
import { STOP_WORDS } from '../core/stopWords.js';
import { otherSpellings } from './abbreviations.js';

/** One direction: from `from` to `to`, as the query (or a synonym phrase) wrote it. */
export interface Direction {
  from: string;
  to: string;
  /** The words from `from` to `to` as written, stop words included ("long to a street"). */
  phrase: string;
}

const CONNECTORS = new Set(['to', 'into']);
/** At most this many directions per query: each adds phrase clauses. */
const MAX_DIRECTIONS = 4;
/** Stop words that may stand between the connector and the second word ("to a street"). */
const MAX_GAP = 2;

const isContent = (word: string | undefined): word is string => word !== undefined && !STOP_WORDS.has(word) && !/^\d+$/.test(word);

/** The `A to B` directions of a text: the word before each connector and the first content word after it. */
export function directionsIn(text: string): Direction[] {
  const words = identifierWords(text);
  const found: Direction[] = [];
  words.forEach((word, i) => {
    const from = words[i - 1];
    if (!CONNECTORS.has(word) || !isContent(from)) return;
    for (let j = i + 1; j <= i + 1 + MAX_GAP && j < words.length; j++) {
      const to = words[j];
      if (isContent(to)) {
        if (to !== from) found.push({ from, to, phrase: words.slice(i - 1, j + 1).join(' ') });
        return;
      }
      if (!STOP_WORDS.has(to!)) return;
    }
  });
  return found;
}

/**
 * How a listing states the opposite of `d` (A to B): `B to A`, or `A from B` ("speech from text"
 * is text to speech). The index drops "to" and keeps its position, so the phrase `B to A` also
 * matches `B from A`, which is `d` itself ("text from images" for "image to text"): `sameDirection`
 * is that phrase, for the query builder to leave out.
 */
export function oppositesOf(d: Direction): { reversed: string; sameDirection: string; fromReversed: string } {
  return { reversed: `${d.to} to ${d.from}`, sameDirection: `${d.to} from ${d.from}`, fromReversed: `${d.from} from ${d.to}` };
}

/**
 * How a listing states `d` (A to B) or its opposite, on a field that indexes the connectors as
 * words (`direction.field` direction_text): "A to B", "A into B" and "B from A" say the same;
 * "B to A", "B into A" and "A from B" ("speech from text" is text to speech) the opposite, and so
 * does a listing that takes B in ("from text", "text into") or gives A out ("to speech", "speech
 * from"): "lifelike voice audio from text" is no transcription, whatever it calls its output.
 * `roles` are those two-word phrases, matched with one word between ("from a text prompt").
 */
export function statedDirections(d: Direction): { same: string[]; opposite: string[]; roles: string[] } {
  return {
    same: [d.phrase, `${d.from} into ${d.to}`, `${d.to} from ${d.from}`],
    opposite: [`${d.to} to ${d.from}`, `${d.to} into ${d.from}`, `${d.from} from ${d.to}`],
    roles: [`from ${d.to}`, `${d.to} to`, `${d.to} into`, `to ${d.from}`, `into ${d.from}`, `${d.from} from`],
  };
}

/** Whether a phrase has a word of direction ("to", "into", "from"): matched on `direction.field`. */
export function hasConnector(phrase: string): boolean {
  return identifierWords(phrase).some((word) => CONNECTORS.has(word) || word === 'from');
}

/**
 * `d` and `d` with one end in another spelling ("coordinates to address" -> "coords to address",
 * "coordinates to addr", ...: search/abbreviations.ts): a tool named `address_to_coords` states
 * its direction in abbreviations, and its identifier words are in the phrase field.
 */
export function spellingsOf(d: Direction): Direction[] {
  const variants = [d];
  for (const from of otherSpellings(d.from)) variants.push({ from, to: d.to, phrase: `${from} to ${d.to}` });
  for (const to of otherSpellings(d.to)) variants.push({ from: d.from, to, phrase: `${d.from} to ${to}` });
  return variants;
}

/** The directions of the query and of the synonym phrases it was expanded with, once each, bounded. */
export function queryDirections(q: string, phrases: readonly string[]): Direction[] {
  const seen = new Set<string>();
  const out: Direction[] = [];
  for (const d of [q, ...phrases].flatMap(directionsIn)) {
    const key = `${d.from} ${d.to}`;
    if (seen.has(key) || out.length >= MAX_DIRECTIONS) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
