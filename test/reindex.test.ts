/**
 * Zero-downtime reindex (docs/reindex.md) against the real Elasticsearch, with the service's own
 * ingest consumer writing through the alias the whole time.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { ListingDocument } from '../src/store/listingDocument.js';
import { reindexListings, ReindexError, type ReindexProgress } from '../scripts/lib/listingReindex.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';
import { embeddedTextHash } from '../src/semantic/listingText.js';
import { storedVector, storedVectorFields } from '../src/store/elasticsearch/storedVector.js';
import { derivedTextFields, type ListingText } from '../src/catalog/document.js';

const SIZE = 1200;

/** What the catalog must hold in the end: per listing, its last price and whether it was removed. */
class ExpectedCatalog {
  readonly state = new Map<string, { amount: string; removed: boolean }>();
  private next = 0;
  constructor(private readonly h: Harness) {}

  async add(count: number): Promise<string[]> {
    const inputs = Array.from({ length: count }, () => {
      const n = this.next++;
      return httpInput({ resource: `https://reindex-${n}.example/api`, payment: { ...httpInput().payment, amount: String(1000 + n) } });
    });
    const { accepted } = await this.h.container.catalog.writer.upsertMany(inputs, { source: 'import' });
    accepted.forEach((a) => this.state.set(a.id, { amount: String(inputs[a.index]!.payment.amount), removed: false }));
    return accepted.map((a) => a.id);
  }

  async reprice(id: string, amount: string): Promise<void> {
    const n = [...this.state.keys()].indexOf(id);
    await this.h.container.catalog.writer.upsert(
      httpInput({ resource: `https://reindex-${n}.example/api`, payment: { ...httpInput().payment, amount } }),
      { source: 'import' },
    );
    this.state.set(id, { amount, removed: false });
  }

  async remove(id: string): Promise<void> {
    await this.h.container.catalog.writer.remove(id, 'unpublished');
    this.state.set(id, { ...this.state.get(id)!, removed: true });
  }

  pick(k: number): string {
    return [...this.state.keys()][k % this.state.size]!;
  }
}

async function drained(h: Harness): Promise<void> {
  await waitFor(async () => (await h.container.catalog.queue.stats()).depth === 0, 30_000, 20);
}

/** Waits until the listing as stored (through the alias, real time) satisfies `check`. */
async function applied(h: Harness, id: string, check: (doc: ListingDocument) => boolean): Promise<void> {
  await waitFor(async () => {
    const doc = await h.container.catalog.reader.get(id);
    return doc !== undefined && check(doc);
  }, 30_000, 20);
}

/** Every document behind the alias, removed ones included. */
async function storedCatalog(h: Harness): Promise<Map<string, ListingDocument>> {
  await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
  const response = await h.elasticsearch.search<ListingDocument>({ index: h.config.listingsAlias, size: 10_000, query: { match_all: {} } });
  return new Map(response.hits.hits.map((hit) => [hit._id!, hit._source!]));
}

describe('npm run reindex: zero-downtime reindex (docs/reindex.md)', function () {
  this.timeout(120_000);
  let h: Harness;

  before(async () => {
    h = await startHarness({ CATALOG_RETRY_BASE_MS: '20', CATALOG_RETRY_MAX_MS: '200' });
  });
  after(() => h?.close());

  it('copies the catalog under concurrent writes and removals: the result equals the expected catalog and reads never fail', async () => {
    const expected = new ExpectedCatalog(h);
    await expected.add(SIZE);
    await drained(h);
    // The catalog's vectors written before the reindex (one core of model time would otherwise
    // compete with it on a loaded machine); listings added during it are embedded concurrently.
    await h.container.embeddings.catchUp();
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    // A vector the copy must carry: the mapping keeps `embedding` out of `_source`, so the copy
    // indexes it from the packed copy (src/store/elasticsearch/storedVector.ts). Its float32s widened
    // to doubles print ~20 characters; the copy indexes them at nine digits. It names the listing's
    // current text and the worker's model, so the embedding worker leaves it be.
    const longVector = expected.pick(SIZE - 5);
    const listing = (await h.elasticsearch.get<ListingDocument>({ index: h.config.listingsAlias, id: longVector }))._source!;
    const float32s = Array.from({ length: 384 }, (_, i) => Math.fround(Math.sin(i * 12.9898 + 1) * 0.05));
    const vectorDoc = { ...storedVectorFields(float32s), embeddedTextHash: embeddedTextHash(listing), embeddingModel: h.config.embeddingModel };
    await h.elasticsearch.update({ index: h.config.listingsAlias, id: longVector, doc: vectorDoc, refresh: true });
    assert.ok(float32s.some((x) => String(x).length > 14), 'the vector is written long');
    // A vector of a text an earlier recipe embedded (its hash is not the listing's text's now): the copy leaves it out.
    const olderRecipe = expected.pick(SIZE - 7);
    const olderDoc = { embedding: float32s, embeddedTextHash: 'an-earlier-text-recipe', embeddingModel: h.config.embeddingModel };
    await h.elasticsearch.update({ index: h.config.listingsAlias, id: olderRecipe, doc: olderDoc, refresh: true });
    // Derived text fields as an earlier version of the code computed them: the copy computes them again.
    const staleText = expected.pick(SIZE - 6);
    await h.elasticsearch.update({ index: h.config.listingsAlias, id: staleText, doc: { textQuality: 0.123, keywords: 'stale words' }, refresh: true });

    // Readers the whole time: every page must answer 200.
    let reading = true;
    const failures: string[] = [];
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        const res = await request(h.app).get('/discovery/resources?limit=5');
        reads += 1;
        if (res.status !== 200 || res.body.results.length !== 5) failures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    })();
    // Writers the whole time: new listings, price changes and removals, at random moments.
    let writing = true;
    const writer = (async () => {
      for (let k = 0; writing; k++) {
        if (k % 3 === 0) await expected.add(5);
        // Not the first and last listings: the precise writes below check those.
        else if (k % 3 === 1) await expected.reprice(expected.pick(1 + ((k * 7) % (SIZE - 10))), String(500 + k));
        else await expected.remove(expected.pick(1 + ((k * 13) % (SIZE - 10))));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    // And writes at the precise moments that matter, each applied to the old index before going on.
    const phases: ReindexProgress[] = [];
    const duringCopy = { removed: expected.pick(SIZE - 1), repriced: expected.pick(SIZE - 2), copiedThenRemoved: '' };
    const onProgress = async (p: ReindexProgress) => {
      phases.push(p);
      if (p.phase === 'copy' && phases.filter((q) => q.phase === 'copy').length === 2) {
        // Listings the snapshot copies later, and one it already copied.
        duringCopy.copiedThenRemoved = expected.pick(0);
        await expected.remove(duringCopy.removed);
        await expected.reprice(duringCopy.repriced, '7');
        await expected.remove(duringCopy.copiedThenRemoved);
        await expected.add(20);
        await applied(h, duringCopy.removed, (doc) => doc.removed === true);
        await applied(h, duringCopy.copiedThenRemoved, (doc) => doc.removed === true);
        await applied(h, duringCopy.repriced, (doc) => String(doc.payment.amount) === '7');
      }
      // Old index write-blocked: these wait in the stream and must land in the new index.
      if (p.phase === 'switch') {
        await expected.add(10);
        await expected.remove(expected.pick(3));
      }
    };

    let result;
    try {
      result = await reindexListings(h.elasticsearch, { alias: h.config.listingsAlias, layout: h.config.listingsLayout, pageSize: 100, onProgress });
    } finally {
      writing = false;
      await writer;
      await drained(h);
      reading = false;
      await reader;
    }

    assert.equal(result.from, h.config.listingsIndex);
    assert.equal(result.to, h.config.listingsAlias + '-v2');
    const behind = Object.keys(await h.elasticsearch.indices.getAlias({ name: h.config.listingsAlias }));
    assert.deepEqual(behind, [result.to]);
    assert.ok(phases.filter((p) => p.phase === 'copy').length >= 10, 'the snapshot was copied in pages');
    assert.deepEqual(failures, [], `reads failed during the reindex (${reads} reads)`);
    assert.ok(reads > 10);

    const stored = await storedCatalog(h);
    assert.equal(stored.size, expected.state.size, 'every listing, removed ones included, is in the new index');
    const wrong: string[] = [];
    for (const [id, want] of expected.state) {
      const doc = stored.get(id);
      if (!doc || String(doc.payment.amount) !== want.amount || (doc.removed === true) !== want.removed) {
        wrong.push(`${id}: want ${JSON.stringify(want)}, have ${doc ? JSON.stringify({ amount: doc.payment.amount, removed: doc.removed }) : 'nothing'}`);
      }
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} listings differ from the expected catalog`);
    assert.equal(stored.get(duringCopy.removed)?.removed, true, 'a removal during the copy is not resurrected by it');
    assert.equal(stored.get(duringCopy.copiedThenRemoved)?.removed, true);
    assert.equal(String(stored.get(duringCopy.repriced)?.payment.amount), '7');
    // The copy carries that vector: the very float32s, stored packed, and indexed in the new index.
    const copied = storedVector(stored.get(longVector))!;
    assert.deepEqual(copied.map((x) => Math.fround(x)), float32s);
    const knn = { field: 'embedding', query_vector: float32s, k: 1, num_candidates: 10, filter: { ids: { values: [longVector] } } };
    const nearest = await h.elasticsearch.search({ index: h.config.listingsAlias, knn, _source: false });
    assert.equal(nearest.hits.hits[0]?._id, longVector, 'the copied vector is not in the new index\'s kNN index');
    assert.ok((nearest.hits.hits[0]?._score ?? 0) > 0.999, 'the copied vector is another');
    assert.ok(copied.every((x) => String(x).replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length <= 9), JSON.stringify(copied.slice(0, 4)));

    // Left for the embedding worker, which may already have embedded the listing's current text.
    const reembedded = stored.get(olderRecipe)!;
    assert.notEqual(reembedded.embeddedTextHash, 'an-earlier-text-recipe', 'a vector of an earlier text was copied');
    if (reembedded.embeddedTextHash !== undefined) assert.equal(reembedded.embeddedTextHash, embeddedTextHash(reembedded));

    const recomputed = stored.get(staleText)!;
    assert.deepEqual({ keywords: recomputed.keywords, textQuality: recomputed.textQuality }, derivedTextFields(recomputed as unknown as ListingText));
    assert.notEqual(recomputed.textQuality, 0.123);

    // Searches see the new index, and the old one refuses writes from now on.
    const live = [...expected.state].filter(([, s]) => !s.removed).length;
    const { count } = await h.elasticsearch.count({ index: h.config.listingsAlias, query: { bool: { must_not: { term: { removed: true } } } } });
    assert.equal(count, live);
    const blocked = await h.elasticsearch.indices.getSettings({ index: result.from, filter_path: '*.settings.index.blocks.write' });
    assert.equal(String(Object.values(blocked)[0]?.settings?.index?.blocks?.write), 'true');
    assert.equal((await h.container.catalog.queue.stats()).deadLetters, 0);
  });

  it('refuses a second run while an unfinished one left its index, and --restart clears it', async () => {
    const alias = h.config.listingsAlias;
    const current = Object.keys(await h.elasticsearch.indices.getAlias({ name: alias }))[0]!;
    const leftover = `${alias}-v3`;
    // What an interrupted run leaves: its index (marked with where it came from) and the write block.
    await h.elasticsearch.indices.create({ index: leftover, mappings: { _meta: { reindexedFrom: current } } });
    await h.elasticsearch.indices.addBlock({ index: current, block: 'write' });
    await assert.rejects(
      reindexListings(h.elasticsearch, { alias, layout: h.config.listingsLayout }),
      (err: unknown) => err instanceof ReindexError && err.message.includes(leftover) && err.message.includes('--restart'),
    );
    const result = await reindexListings(h.elasticsearch, { alias, layout: h.config.listingsLayout, restart: true });
    assert.equal(result.to, `${alias}-v4`);
    assert.equal(await h.elasticsearch.indices.exists({ index: leftover }), false);
    // The service writes into the new index.
    const [id] = await new ExpectedCatalog(h).add(1);
    await waitFor(async () => (await h.container.catalog.reader.get(id!)) !== undefined, 10_000, 50);
  });
});
