/**
 * Whether the catalog's index knows every word of a query: Elasticsearch analyses the query as an
 * artificial document of `phrase_text` (every listing text, stemmed) and reports each term's
 * document frequency (`_termvectors` with term statistics: no listing is read). The typo pass is
 * sent only when some word is unknown (search/typoPass.ts).
 */
import type { Client } from '@elastic/elasticsearch';

/** The field that holds every listing's title, description, name and tags (mappings/listings.json). */
const ALL_TEXT_FIELD = 'phrase_text';

export class ListingVocabulary {
  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {}

  /**
   * Term statistics are a shard's: on an index of several shards a word held only by another shard
   * reads as unknown, which costs a typo pass, never a missed one.
   */
  async knowsEveryWord(text: string): Promise<boolean> {
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
    return Object.values(terms).every((term) => (term.doc_freq ?? 0) > 0);
  }
}
