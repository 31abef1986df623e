import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpListing, seedUnembedded, waitSearchable } from './support/discoveryFixtures.js';

import { setRanking } from '../src/search/rankingCommand.js';
import { EmbeddingWorker } from '../src/semantic/embeddingWorker.js';
import { EMBEDDING_MODEL_NAMES, UNNAMED_VECTORS_MODEL } from '../src/config/embeddingModels.js';
import { embeddedTextHash, RETIRED_TEXT_HASHES } from '../src/semantic/listingText.js';
import { sharedEmbedder, type Embedder } from '../src/semantic/textEmbedder.js';
import { ListingEmbeddingStore } from '../src/store/elasticsearch/listingEmbeddings.js';
import type { ListingDocument } from '../src/store/listingDocument.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';
import { ListingStore } from '../src/store/elasticsearch/listingStore.js';
import { storedVector, storedVectorFields } from '../src/store/elasticsearch/storedVector.js';
import { vectorDigits } from '../src/core/vectorDigits.js';

/**
 * Embeddings off the write path (README "Semantic retrieval"): a listing is stored and found by its
 * words at once; the embedding worker gives it a vector afterwards, re-embeds it when its text
 * changes, and never writes a vector of an old text over a newer version.
 */
describe('the embedding worker', () => {
  let h: Harness;
  let store: ListingEmbeddingStore;
  const transcription = { path: 'stt', title: 'Speech transcription', description: 'Transcribes recorded meetings and calls, with timestamps and speaker labels.', tags: ['transcription'] };
  const spokenQuery = 'convert spoken audio into written words';

  const search = async (q: string): Promise<string[]> =>
    ((await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}`).expect(200)).body.results as Array<{ id: string }>).map((r) => r.id);
  /** The stored document with its vector as the listing's writes read it back (the packed copy: the mapping keeps `embedding` out of `_source`). */
  const stored = async (id: string): Promise<ListingDocument> => {
    const { embedding: _json, embeddingPacked, ...doc } = (await h.elasticsearch.get<ListingDocument>({ index: h.config.listingsAlias, id }))._source!;
    const vector = storedVector({ embeddingPacked, embedding: _json });
    return vector ? { ...doc, embedding: vector } : doc;
  };
  /** Whether the listing's vector is in the kNN index: its own vector finds it. */
  const indexedVector = async (id: string, vector: number[]): Promise<boolean> => {
    const answer = await h.elasticsearch.search({
      index: h.config.listingsAlias,
      knn: { field: 'embedding', query_vector: vector, k: 1, num_candidates: 10, filter: { ids: { values: [id] } } },
      _source: false,
    });
    return answer.hits.hits.some((hit) => hit._id === id);
  };
  const refresh = () => h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });

  before(async () => {
    // Every worker but the embedding one: the tests run it themselves, when they choose.
    h = await startHarness({}, { workers: false });
    for (const worker of h.container.workers) if (worker !== h.container.embeddings) worker.start();
    store = new ListingEmbeddingStore(h.elasticsearch, h.config.listingsAlias);
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'semantic.weight', '5');
    await h.container.search.ranking.refresh();
  });
  after(async () => h.close());

  it('stores a listing without waiting for its embedding; text search finds it, semantic retrieval only once the worker ran', async () => {
    const [id] = await seedUnembedded(h, [httpListing(transcription)]);
    assert.equal((await stored(id!)).embedding, undefined, 'the write path computed an embedding');
    assert.deepEqual(await search('speech transcription'), [id], 'not found by its words before it is embedded');
    assert.ok(!(await search(spokenQuery)).includes(id!), 'no words in common: only the vector can find it');

    assert.ok((await h.container.embeddings.catchUp()) >= 1, 'the worker embedded nothing: is the model under .cache/models? (npm run services -- model)');
    await refresh();
    const doc = await stored(id!);
    assert.equal(doc.embedding?.length, 384);
    assert.equal(doc.embeddedTextHash, embeddedTextHash(doc));
    assert.equal(doc.embeddingModel, h.config.embeddingModel);
    assert.equal((await search(spokenQuery))[0], id);
    const raw = (await h.elasticsearch.get<ListingDocument>({ index: h.config.listingsAlias, id: id! }))._source!;
    assert.equal(raw.embedding, undefined, 'the vector is kept out of _source, which every fetched hit reads');
    assert.equal(typeof raw.embeddingPacked, 'string');
  });

  it('a signals flush, a touch and new evidence keep the vector indexed: Elasticsearch rebuilds those from _source, which lacks it', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ path: 'fx-partial', title: 'Currency exchange rates', description: 'Daily reference rates between world currencies.', tags: ['currency'] })]);
    await h.container.embeddings.catchUp();
    const vector = (await stored(id!)).embedding!;
    await refresh();
    assert.ok(await indexedVector(id!, vector), 'not embedded');
    const listings = new ListingStore(h.elasticsearch, h.config.listingsAlias);
    const at = new Date().toISOString();
    const writes = [
      { op: 'signals' as const, id: id!, signals: { settleCount7d: 3, rejectionRate7d: 0, uniquePayers7d: 2 } },
      { op: 'touch' as const, id: id!, seenAt: at },
      { op: 'evidence' as const, id: id!, provenance: { probed402: { lastStatus: 'valid_402', lastAt: at } } },
    ];
    for (const write of writes) {
      assert.deepEqual((await listings.apply([write])).map((o) => o.status), ['applied'], write.op);
      await refresh();
      assert.ok(await indexedVector(id!, vector), `the ${write.op} write dropped the listing out of the kNN index`);
      assert.deepEqual((await stored(id!)).embedding, vector, `the ${write.op} write changed the stored vector`);
    }
    assert.equal((await stored(id!)).lastSeen, at);
  });

  it("a listing's vector is its text's alone: the same whatever listings are embedded beside it", async () => {
    // The quantized model quantizes by the range of a whole batch: a text batched with others,
    // padded or of the same length, came out another vector (cosine 0.990 to itself alone).
    const model = sharedEmbedder(h.config, h.logger);
    const text = 'Weather forecast for any city today';
    const [alone] = (await model.embed([text], 'passage'))!;
    const mates = [['Translate documents between many languages fast'], ['Ping', `${text}: temperature, rain and wind for the next seven days, hour by hour.`]];
    for (const others of mates) {
      const batch = (await model.embed([others[0]!, text, ...others.slice(1)], 'passage'))!;
      assert.deepEqual(Array.from(batch[1]!), Array.from(alone!), `beside ${JSON.stringify(others)}`);
    }
  });

  it('keeps the vector when a write leaves the text unchanged, and re-embeds a changed description', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt2' })]);
    await h.container.embeddings.catchUp();
    const before = await stored(id!);
    assert.ok(before.embedding, 'not embedded');

    // A price change: same text, the stored vector stays (no gap in semantic retrieval).
    await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt2', amount: '2000' })]);
    await waitSearchable(h, [id!], { term: { 'payment.amount': 2000 } });
    const repriced = await stored(id!);
    assert.deepEqual(repriced.embedding, before.embedding);
    await refresh();
    assert.ok(await indexedVector(id!, before.embedding!), 'the kept vector is not indexed');
    assert.equal(repriced.embeddedTextHash, before.embeddedTextHash);
    assert.equal(repriced.embeddingModel, h.config.embeddingModel);

    const changed = { ...transcription, path: 'stt2', title: 'Image resize', description: 'Resizes and crops pictures to any size.', tags: ['images'] };
    await seedUnembedded(h, [httpListing(changed)]);
    await waitSearchable(h, [id!], { match: { 'describe.title': { query: 'Image resize', operator: 'and' } } });
    const rewritten = await stored(id!);
    assert.equal(rewritten.embedding, undefined, 'a vector of the old text survived the change');
    assert.equal(rewritten.embeddedTextHash, undefined);

    assert.ok((await h.container.embeddings.catchUp()) >= 1);
    await refresh();
    const after = await stored(id!);
    assert.equal(after.embeddedTextHash, embeddedTextHash(after));
    assert.notEqual(after.embeddedTextHash, before.embeddedTextHash);
    assert.notDeepEqual(after.embedding, before.embedding);
    assert.ok((await search('shrink my photos')).includes(id!), 'not found by the meaning of its new text');
  });

  it('never writes a vector over a listing that changed while it was embedded; the next round embeds the new text', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt3' })]);
    const model = sharedEmbedder(h.config, h.logger);
    const changedTitle = 'Weather forecast';
    // The model runs on the old text while a seller rewrites the listing.
    const racing: Embedder = {
      model: model.model,
      async embed(texts, role) {
        const vectors = await model.embed(texts, role);
        await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt3', title: changedTitle, description: 'Hourly and daily forecasts for any city.', tags: ['weather'] })]);
        await waitSearchable(h, [id!], { match: { 'describe.title': { query: changedTitle, operator: 'and' } } });
        return vectors;
      },
    };
    const worker = new EmbeddingWorker(store, racing, h.logger, { batchSize: 32, idleMs: 1000 });
    const round = await worker.embedBatch();
    assert.ok(round.conflicts >= 1, JSON.stringify(round));
    const raced = await stored(id!);
    assert.equal(raced.describe?.title, changedTitle, 'the change was lost');
    assert.equal(raced.embedding, undefined, 'a vector of the old text was written over the new one');

    await h.container.embeddings.catchUp();
    const after = await stored(id!);
    assert.equal(after.embeddedTextHash, embeddedTextHash(after), 'the new text was not embedded in the next round');
  });

  it('a vector of another model is never compared with a query; the worker re-embeds the listing with the running model', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt7' })]);
    const model = h.config.embeddingModel;
    const other = EMBEDDING_MODEL_NAMES.find((name) => name !== model)!;
    // What a deployment that ran the other model left: here the query's own vector, so that only
    // the model check can keep the listing out of the query's nearest.
    const queryVector = Array.from((await sharedEmbedder(h.config, h.logger).embed([spokenQuery], 'query'))![0]!);
    const picked = (await store.pending(100, other)).listings.find((l) => l.id === id)!;
    assert.deepEqual(await store.write([{ ...picked, embedding: queryVector, textHash: embeddedTextHash(picked.doc), model: other }]), ['written']);
    await refresh();
    // A gateway learns that vectors of another model are stored within 5 s (OtherModelVectors);
    // from then on its kNN search filters on the query's model.
    await waitFor(async () => !(await search(spokenQuery)).includes(id!), 15_000).catch(() =>
      assert.fail('a listing vector of another model is still compared with the query'),
    );
    assert.ok(!(await store.pending(100, other)).listings.some((l) => l.id === id), 'embedded for the other model');
    assert.ok((await store.pending(100, model)).listings.some((l) => l.id === id), 'not offered to the running model');

    // The same text again (a re-announce): the vector is kept with its model, and still re-embedded.
    await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt7', amount: '3000' })]);
    await waitSearchable(h, [id!], { term: { 'payment.amount': 3000 } });
    assert.equal((await stored(id!)).embeddingModel, other);

    assert.ok((await h.container.embeddings.catchUp()) >= 1);
    await refresh();
    const doc = await stored(id!);
    assert.equal(doc.embeddingModel, model);
    assert.equal(doc.embeddedTextHash, embeddedTextHash(doc));
    assert.notDeepEqual(doc.embedding, queryVector);
    assert.ok((await search(spokenQuery)).includes(id!), 'not found by meaning once embedded by the running model');
  });

  it('a vector stored before vectors named their model is named by a worker of that model, not computed again', async function () {
    if (h.config.embeddingModel !== UNNAMED_VECTORS_MODEL) this.skip();
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt6' })]);
    await h.container.embeddings.catchUp();
    // As an index written before embeddingModel existed holds it; a recognisable vector shows
    // whether the worker computed it again.
    const marker = Array.from((await sharedEmbedder(h.config, h.logger).embed(['a marker text'], 'passage'))![0]!);
    const { embeddingModel, ...unnamed } = await stored(id!);
    assert.equal(embeddingModel, UNNAMED_VECTORS_MODEL);
    await h.elasticsearch.index({ index: h.config.listingsAlias, id: id!, document: { ...unnamed, ...storedVectorFields(marker) }, refresh: true });
    assert.ok((await store.pending(100, UNNAMED_VECTORS_MODEL)).listings.find((l) => l.id === id)?.unnamed, 'not offered as unnamed');

    assert.ok((await h.container.embeddings.catchUp()) >= 1);
    const doc = await stored(id!);
    assert.equal(doc.embeddingModel, UNNAMED_VECTORS_MODEL);
    assert.deepEqual(doc.embedding, vectorDigits(marker), 'the vector was computed again');
    assert.ok(await indexedVector(id!, marker), 'naming the model dropped the vector out of the kNN index');
    assert.equal(doc.embeddedTextHash, embeddedTextHash(doc));
  });

  it('two workers that pick the same listing: the second write conflicts and changes nothing', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt4' })]);
    const model = h.config.embeddingModel;
    const first = (await store.pending(100, model)).listings.find((l) => l.id === id);
    const second = (await store.pending(100, model)).listings.find((l) => l.id === id);
    assert.ok(first && second);
    const vector = (n: number) => Array.from({ length: 384 }, (_, i) => (i === n ? 1 : 0));
    assert.deepEqual(await store.write([{ ...first, embedding: vector(0), textHash: 'a', model }]), ['written']);
    assert.deepEqual(await store.write([{ ...second, embedding: vector(1), textHash: 'b', model }]), ['conflict']);
    const doc = await stored(id!);
    assert.equal(doc.embeddedTextHash, 'a');
    assert.equal(doc.embedding?.[0], 1);
    // Embedded (though not yet refreshed): a third look no longer offers it.
    assert.ok(!(await store.pending(100, model)).listings.some((l) => l.id === id));
  });
  it('a removed listing leaves the vector index (the kNN needs no "not removed" filter) and is embedded again when listed again', async () => {
    const [id] = await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt5' })]);
    await h.container.embeddings.catchUp();
    assert.ok((await stored(id!)).embedding, 'not embedded');
    await h.container.catalog.writer.remove(id!, 'unpublished');
    await waitFor(async () => {
      await refresh();
      return (await stored(id!)).removed === true;
    }, 15_000);
    await refresh(); // the realtime get can see the removal before a refresh the search sees
    const removed = await stored(id!);
    assert.equal(removed.embedding ?? null, null, 'a removed listing kept its vector');
    assert.equal(removed.embeddedTextHash ?? null, null);
    // Not offered to the worker while removed.
    assert.equal(removed.embeddingModel ?? null, null);
    assert.ok(!(await store.pending(100, h.config.embeddingModel)).listings.some((l) => l.id === id));
    assert.ok(!(await search(spokenQuery)).includes(id!), 'a removed listing was found');

    await seedUnembedded(h, [httpListing({ ...transcription, path: 'stt5' })]);
    await waitFor(async () => (await stored(id!)).removed !== true, 15_000);
    await refresh();
    await h.container.embeddings.catchUp();
    await refresh();
    const again = await stored(id!);
    assert.equal(again.embedding?.length, 384, 'listed again but not embedded again');
    // Earlier tests left listings with this very text (stt, stt4, stt6...): they tie with it, so
    // which of the twins comes first is not this test's point; that meaning alone finds it is.
    assert.ok((await search(spokenQuery)).includes(id!), 'listed again but not found by meaning');
  });

  it("an endpoint described in no words is found by meaning through its route's words; a vector of the empty text left by the recipe before is embedded again", async () => {
    const { describe: _none, ...bare } = httpListing({ path: 'v1/backlinks/{domain}', title: 'unused' });
    const [id] = await seedUnembedded(h, [bare]);
    const question = 'which sites link to mine'; // no word in common with "backlinks domain"
    const model = h.config.embeddingModel;
    // What the recipe before left on every such listing: the one vector of the empty text.
    const empty = Array.from((await sharedEmbedder(h.config, h.logger).embed([''], 'passage'))![0]!);
    const picked = (await store.pending(100, model)).listings.find((l) => l.id === id)!;
    assert.deepEqual(await store.write([{ ...picked, embedding: empty, textHash: RETIRED_TEXT_HASHES[0]!, model }]), ['written']);
    await refresh();
    assert.ok(!(await search(question)).includes(id!), 'found by the vector of no text');
    assert.ok(!(await store.pending(100, model)).listings.some((l) => l.id === id), 'a current vector offered again');
    assert.ok((await store.pending(100, model, new Map(), RETIRED_TEXT_HASHES)).listings.some((l) => l.id === id), 'a retired vector not offered');

    assert.ok((await h.container.embeddings.catchUp()) >= 1);
    await refresh();
    const doc = await stored(id!);
    assert.equal(doc.embeddedTextHash, embeddedTextHash(doc));
    assert.notEqual(doc.embeddedTextHash, RETIRED_TEXT_HASHES[0]);
    assert.equal((await search(question))[0], id, 'not found by meaning once embedded as its route');
  });
});
