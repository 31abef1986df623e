/**
 * Embeddings for the search benchmark's generated catalog without embedding 100k listings on the
 * write path (about 100 listings/s per core: a quarter of an hour of a shared 2-core machine).
 * Generated listings differ mostly by brand and by which stock sentences they use, so each one
 * gets the real embedding (the installed model) of its title or tool name and its action
 * sentence, brand removed (under a thousand distinct texts), plus a little random noise so that
 * no two vectors are equal, normalized. The kNN clause then searches an HNSW graph of the
 * catalog's size with clustered vectors, as a real catalog's are; the vectors are approximate,
 * the search cost is what is measured. Each also gets the `embeddedTextHash` of its text and the
 * model's name, as the embedding worker writes them, so the gateways' embedding workers take the listings as embedded and
 * do not spend the measurement re-embedding the catalog.
 */
import type { Client } from '@elastic/elasticsearch';
import { embeddedTextHash } from '../../src/door.js';
import type { Embedder } from '../../src/door.js';
import { EMBEDDED_TEXT_FIELDS, type EmbeddedFields } from '../../src/door.js';
import { storedVectorFields } from '../../src/door.js';

const PAGE = 2000;
/** Per-dimension noise; a unit vector's components are about 1/sqrt(384) = 0.05. */
const NOISE = 0.01;

type Source = EmbeddedFields;

function keyText(doc: Source): string {
  const title = doc.describe?.title ?? (doc.name ?? '').replace(/_/g, ' ');
  const action = /(\S+ [^.]*?) via \S+\.$/.exec(doc.describe?.description ?? doc.description ?? '')?.[1] ?? '';
  return `${title}. ${action}`;
}

function noisy(base: Float32Array, random: () => number): number[] {
  const v = Array.from(base, (x) => x + NOISE * (random() + random() + random() - 1.5) * 2);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
}

/**
 * Only listings without a vector are read, so a load interrupted half-way (a bulk request timing
 * out on a busy machine) is finished by running it again.
 */
export async function addApproximateEmbeddings(client: Client, alias: string, embedder: Embedder, progress: (done: number) => void): Promise<number> {
  const cache = new Map<string, Float32Array>();
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let after: unknown[] | undefined;
  let done = 0;
  for (;;) {
    const page = await client.search<Source>({
      index: alias, size: PAGE, sort: [{ id: 'asc' }], _source: EMBEDDED_TEXT_FIELDS,
      query: { bool: { must_not: [{ exists: { field: 'embeddedTextHash' } }] } },
      ...(after ? { search_after: after as never } : {}),
    });
    const hits = page.hits.hits;
    if (hits.length === 0) break;
    const missing = [...new Set(hits.map((h) => keyText(h._source!)).filter((k) => !cache.has(k)))];
    if (missing.length > 0) {
      const vectors = await embedder.embed(missing, 'passage');
      if (!vectors) throw new Error('the embedding model is not installed (npm run services -- model)');
      missing.forEach((k, i) => cache.set(k, vectors[i]!));
    }
    const operations = hits.flatMap((h) => [{ update: { _index: h._index, _id: h._id } }, { doc: { ...storedVectorFields(noisy(cache.get(keyText(h._source!))!, random)), embeddedTextHash: embeddedTextHash(h._source!), embeddingModel: embedder.model } }]);
    const result = await client.bulk({ operations, refresh: false });
    if (result.errors) throw new Error('bulk update of embeddings failed');
    done += hits.length;
    progress(done);
    after = hits[hits.length - 1]!.sort;
  }
  await client.indices.refresh({ index: alias });
  return cache.size;
}
