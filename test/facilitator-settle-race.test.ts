import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { ListingStore } from '../src/store/elasticsearch/listingStore.js';
import type { ApplyOutcome, CatalogOperation } from '../src/store/catalogOperations.js';
import type { HttpListingInput } from '../src/shapes/listingInput.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';

/**
 * A settlement's traffic write decides "declared or traffic" from what the catalog shows when the
 * payment is settled; a declared write still in the durable stream is invisible then. These tests
 * hold the ingest consumer so that the declared write is queued and not applied when the payment
 * settles, then let it run: the traffic write lands after the declared one.
 */
describe('facilitator: a settlement racing a declared write in the stream', () => {
  let h: Harness;
  const payer = newWallet();
  before(async () => {
    h = await startHarness({ SIGNALS_FLUSH_MS: '200' });
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 1_000_000n);
  });
  after(async () => h.close());

  const settle = async (body: unknown) => (await request(h.app).post('/settle').send(body as object).expect(200)).body;
  /** Settles `amount` for `url`, the payment describing the resource as a payer would like it listed. */
  const settleFor = async (url: string, amount: string, seller = newWallet().address) => {
    const body = await exactRequest(payer, requirements(seller, { amount }), {}, { url, description: 'Listed by a payer', mimeType: 'text/html' });
    assert.equal((await settle(body)).success, true);
  };
  /** Runs `queued` while the ingest consumer is stopped, then waits for every traffic write it caused to be queued and restarts the consumer. */
  const withConsumerHeld = async (queued: () => Promise<void>) => {
    const consumer = h.container.workers.find((w) => w.name === 'catalog-ingest')!;
    await consumer.stop();
    try {
      await queued();
      await h.container.facilitator.cataloger.idle();
    } finally {
      consumer.start();
    }
  };
  const declared = (url: string, amount: string): HttpListingInput => ({
    type: 'http',
    resource: url,
    payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount, payTo: newWallet().address },
    describe: { title: 'Declared title', description: 'Declared by the seller', tags: ['declared'] },
  });
  const settledOnce = (id: string) =>
    waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${id}`);
      return res.status === 200 && res.body.signals?.settleCount7d === 1 ? res.body : undefined;
    });
  /** A write queued after everything above it has been applied (the stream applies one listing's writes in order). */
  const appliedUpTo = async (id: string, marker: (doc: { lastSeen: string }) => boolean) =>
    waitFor(async () => {
      const doc = await h.container.catalog.reader.get(id);
      return doc && marker(doc) ? doc : undefined;
    });

  it('an import queued but not applied keeps its declared content and price; a tiny settlement only counts and marks it seen', async () => {
    const url = 'http://race-import.test/quote';
    const id = httpListingId(url, 'GET');
    const input = declared(url, '5000');
    let importedAt = '';
    await withConsumerHeld(async () => {
      importedAt = (await h.container.catalog.writer.upsert(input, { source: 'import', seenAt: new Date(Date.now() - 60_000) })).document.lastSeen;
      assert.equal(await h.container.catalog.reader.get(id), undefined, 'the import is still in the stream');
      await settleFor(url, '1');
    });
    // The traffic write is applied once lastSeen moves past the import's; the settlement is counted once the flush lands.
    const doc = await appliedUpTo(id, (d) => d.lastSeen > importedAt);
    assert.equal(doc.source, 'import');
    const listing = await settledOnce(id);
    assert.equal(listing.payment.amount, '5000', 'the settled amount replaced the declared price');
    assert.equal(listing.payment.payTo, input.payment.payTo);
    assert.equal(listing.describe?.description, 'Declared by the seller');
    assert.deepEqual(listing.describe?.tags, ['declared']);
    assert.equal(listing.accepts, undefined, 'traffic added its payment options');
    // The listing's history saw one listing, never a price or description change.
    const history = (await request(h.app).get(`/discovery/resources/${id}/history`).expect(200)).body as { events: Array<{ type: string }> };
    assert.deepEqual(history.events.map((e) => e.type), ['first_seen']);
  });

  it('a seller announcing a resource traffic listed, and an operator removing one, are not undone by a settlement queued behind them', async () => {
    const announcedUrl = 'http://race-announced.test/quote';
    const removedUrl = 'http://race-removed.test/quote';
    const announcedId = httpListingId(announcedUrl, 'GET');
    const removedId = httpListingId(removedUrl, 'GET');
    // Both listed from traffic first.
    await settleFor(announcedUrl, '7');
    await settleFor(removedUrl, '7');
    await waitFor(async () => (await h.container.catalog.reader.get(announcedId))?.source === 'traffic');
    await waitFor(async () => (await h.container.catalog.reader.get(removedId))?.source === 'traffic');
    await withConsumerHeld(async () => {
      await h.container.catalog.writer.upsert(declared(announcedUrl, '900'), { source: 'announce' });
      await h.container.catalog.writer.remove(removedId, 'operator');
      // Paid again (a different amount, so the cataloger writes again rather than repeating its last sighting).
      await settleFor(announcedUrl, '2');
      await settleFor(removedUrl, '2');
    });
    // Both settlements counted, and everything queued for both listings applied (a write queued after them is).
    await waitFor(async () => (await h.container.catalog.reader.get(announcedId))?.signals.settleCount7d === 2);
    const marker = new Date(Date.now() + 1000);
    await h.container.catalog.writer.touch(announcedId, marker);
    await h.container.catalog.writer.touch(removedId, marker);
    const removed = await appliedUpTo(removedId, (d) => d.lastSeen === marker.toISOString());
    const announced = await appliedUpTo(announcedId, (d) => d.lastSeen === marker.toISOString());
    assert.equal(removed.removed, true, 'a settlement revived a listing an operator removed');
    assert.equal(removed.removedReason, 'operator');
    assert.equal(announced.source, 'announce');
    assert.equal(announced.payment.amount, '900', 'the settled amount replaced the announced price');
    assert.equal(announced.describe?.description, 'Declared by the seller');
    assert.equal(announced.accepts, undefined, 'traffic added its payment options');
  });

  it('what traffic listed itself it still rewrites: a new amount refreshes it, and paid again it comes back from stale', async () => {
    const url = 'http://race-traffic.test/quote';
    const id = httpListingId(url, 'GET');
    await settleFor(url, '7');
    await waitFor(async () => (await h.container.catalog.reader.get(id))?.source === 'traffic');
    await h.container.catalog.writer.remove(id, 'stale');
    await waitFor(async () => (await h.container.catalog.reader.get(id))?.removed === true);
    await settleFor(url, '8');
    const back = await waitFor(async () => {
      const doc = await h.container.catalog.reader.get(id);
      return doc && !doc.removed ? doc : undefined;
    });
    assert.equal(back.source, 'traffic');
    assert.equal(back.payment.amount, '8');
  });

  it('several consumers: the declared listing wins whichever order (or both at once) they apply the two writes in', async () => {
    // Two gateways' consumers, each handed one of the two entries of a listing.
    const [first, second] = [new ListingStore(h.elasticsearch, h.config.listingsAlias), new ListingStore(h.elasticsearch, h.config.listingsAlias)];
    /** As a consumer does: a conflicted write is applied again with fresh state. */
    const applyUntilDone = async (store: ListingStore, operation: CatalogOperation): Promise<ApplyOutcome> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const [outcome] = await store.apply([operation]);
        if (outcome!.status !== 'retry') return outcome!;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('never applied');
    };
    for (const order of ['traffic first', 'declared first', 'at once'] as const) {
      const url = `http://race-consumers.test/${order.replace(' ', '-')}`;
      const id = httpListingId(url, 'GET');
      const now = new Date();
      const declaredOp: CatalogOperation = { op: 'upsert', id, doc: buildListingDocument(declared(url, '5000'), { source: 'import' }, now), replaceSignals: false, probablyNew: true };
      const paid = { type: 'http' as const, resource: url, payment: { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1' }, describe: { description: 'Listed by a payer' } };
      const trafficOp: CatalogOperation = { op: 'upsert', id, doc: buildListingDocument(paid, { source: 'traffic' }, now), replaceSignals: false };
      if (order === 'traffic first') {
        await applyUntilDone(first, trafficOp);
        await applyUntilDone(second, declaredOp);
      } else if (order === 'declared first') {
        await applyUntilDone(first, declaredOp);
        const outcome = await applyUntilDone(second, trafficOp);
        assert.deepEqual(outcome, { status: 'applied', as: { op: 'touch', id, seenAt: now.toISOString() } }, 'observers are told a touch');
      } else await Promise.all([applyUntilDone(first, declaredOp), applyUntilDone(second, trafficOp)]);
      const doc = (await h.container.catalog.reader.get(id))!;
      assert.equal(doc.source, 'import', order);
      assert.equal(doc.payment.amount, '5000', order);
      assert.equal(doc.describe?.description, 'Declared by the seller', order);
    }
  });
});
