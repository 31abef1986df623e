/**
 * How many listings have each word of a query: Elasticsearch analyses the query as an artificial
 * document of `phrase_text` (every listing text, stemmed) and reports each term's document
 * frequency (`_termvectors` with term statistics: no listing is read). The typo pass is sent only
 * when some word is unknown, a query of words only a few listings have is read as naming them
 * (search/typoPass.ts), and a misspelled query's meaning is read from its spelling as the catalog
 * writes it (`closestKnownWords`).
 */
import type { Client } from '@elastic/elasticsearch';

/** The field that holds every listing's title, description, name and tags (mappings/listings.json). */
const ALL_TEXT_FIELD = 'phrase_text';

/** A typed word (at `offset`, `length` characters) and the catalog's closest word. */
export interface WordReplacement {
  offset: number;
  length: number;
  replacement: string;
}

/** Words of at least `minLength` characters may differ from the catalog's by `maxEdits` edits. */
export interface EditBand {
  minLength: number;
  maxEdits: 1 | 2;
}

export class ListingVocabulary {
  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {}

  /**
   * How many listings have each word of `text`, as the catalog's text field analyses it (stemmed,
   * lower-cased): one termvectors call on a document of the text alone, whatever the catalog's size.
   * Term statistics are a shard's: on an index of several shards a word held only by another shard
   * reads as unknown (a typo pass, never a missed one) and a word reads rarer than it is.
   */
  async listingCounts(text: string): Promise<Map<string, number>> {
    const response = await this.client.termvectors({
      index: this.alias,
      doc: { [ALL_TEXT_FIELD]: text },
      fields: [ALL_TEXT_FIELD],
      term_statistics: true,
      field_statistics: false,
      positions: false,
      offsets: false,
      payloads: false,
    });
    const terms = response.term_vectors?.[ALL_TEXT_FIELD]?.terms ?? {};
    return new Map(Object.entries(terms).map(([term, stats]) => [term, stats.doc_freq ?? 0]));
  }

  /**
   * For each word of `text` no listing has, the closest word listings do have, where one is within
   * the edit budget (Elasticsearch's term suggester over the same field, the first letter kept: one
   * suggester per band of `budget`, a longer band's answer winning for its words), with the typed
   * word's place in `text`.
   */
  async closestKnownWords(text: string, budget: readonly EditBand[]): Promise<WordReplacement[]> {
    if (budget.length === 0) return [];
    const bands = [...budget].sort((a, b) => a.minLength - b.minLength);
    const response = await this.client.search({
      index: this.alias,
      size: 0,
      track_total_hits: false,
      suggest: {
        text,
        ...Object.fromEntries(bands.map((band, i) => [
          `band${i}`,
          { term: { field: ALL_TEXT_FIELD, suggest_mode: 'missing', size: 1, max_edits: band.maxEdits, prefix_length: 1, min_word_length: band.minLength } },
        ])),
      },
    });
    type Entry = { offset: number; length: number; options?: Array<{ text: string }> };
    const suggested = (response.suggest ?? {}) as Record<string, Entry[]>;
    const byOffset = new Map<number, WordReplacement>();
    bands.forEach((band, i) => {
      for (const entry of suggested[`band${i}`] ?? []) {
        const replacement = entry.options?.[0]?.text;
        if (replacement !== undefined) byOffset.set(entry.offset, { offset: entry.offset, length: entry.length, replacement });
      }
    });
    return [...byOffset.values()];
  }
}
