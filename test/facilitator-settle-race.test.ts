import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { ListingStore } from '../src/store/elasticsearch/listingStore.js';
import type { ApplyOutcome, CatalogOperation } from '../src/store/catalogOperations.js';
import type { HttpListingInput } from '../src/shapes/listingInput.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { fundBuyer } from './support/chainFunding.js';

/**
 * A settlement decides what it counts for from what the catalog shows when the payment is settled;
 * a declared write still in the durable stream is invisible then. These tests hold the ingest
 * consumer so that the declared write is queued and not applied when the payment settles, then let
 * it run. Since issue 43 traffic writes no listing at all: a settlement that finds nothing listed
 * waits for the write that lists the resource and counts then, when it paid the seller that write
 * names. The store still turns a traffic upsert of a declared listing into a touch (last test):
 * entries queued before the upgrade may still be in a stream.
 */
describe('facilitator: a settlement racing a declared write in the stream', () => {
  let h: Harness;
  const payer = newWallet();
  before(async () => {
    h = await startHarness({ SIGNALS_FLUSH_MS: '200' });
    await fundBuyer(payer.address, 1_000_000n);
  });
  after(async () => h.close());

  const settle = async (body: unknown) => (await request(h.app).post('/settle').send(body as object).expect(200)).body;
  /** Settles `amount` for `url`, the payment describing the resource as a payer would like it listed. */
  const settleFor = async (url: string, amount: string, seller: string = newWallet().address) => {
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

  it('an import queued but not applied: a settlement to its payTo waits for it and counts once it lands; content and price stay declared', async () => {
    const url = 'http://race-import.test/quote';
    const id = httpListingId(url, 'GET');
    const input = declared(url, '5000');
    await withConsumerHeld(async () => {
      await h.container.catalog.writer.upsert(input, { source: 'import', seenAt: new Date(Date.now() - 60_000) });
      assert.equal(await h.container.catalog.reader.get(id), undefined, 'the import is still in the stream');
      await settleFor(url, '5000', input.payment.payTo);
      // A payment to somebody else, waiting just the same: it never counts.
      await settleFor(url, '5000');
    });
    const listing = await settledOnce(id);
    assert.equal(listing.payment.amount, '5000');
    assert.equal(listing.payment.payTo, input.payment.payTo);
    assert.equal(listing.describe?.description, 'Declared by the seller');
    assert.deepEqual(listing.describe?.tags, ['declared']);
    assert.equal(listing.accepts, undefined, 'traffic added no payment option');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await request(h.app).get(`/discovery/resources/${id}`).expect(200)).body.signals.settleCount7d, 1);
    // The listing's history saw one listing and its first settlement, never a price or description change.
    const history = await waitFor(async () => {
      const body = (await request(h.app).get(`/discovery/resources/${id}/history`).expect(200)).body as { events: Array<{ type: string }> };
      return body.events.some((e) => e.type === 'first_settled') ? body : undefined;
    });
    assert.deepEqual(history.events.map((e) => e.type), ['first_settled', 'first_seen']);
  });

  it('an announced listing and an operator removal queued before a settlement are not undone by it', async () => {
    const announcedUrl = 'http://race-announced.test/quote';
    const removedUrl = 'http://race-removed.test/quote';
    const announcedId = httpListingId(announcedUrl, 'GET');
    const removedId = httpListingId(removedUrl, 'GET');
    const announcedInput = declared(announcedUrl, '900');
    const removedInput = declared(removedUrl, '900');
    await h.container.catalog.writer.upsert(removedInput, { source: 'import' });
    await waitFor(async () => h.container.catalog.reader.get(removedId));
    await withConsumerHeld(async () => {
      await h.container.catalog.writer.upsert(announcedInput, { source: 'announce' });
      await h.container.catalog.writer.remove(removedId, 'operator');
      await settleFor(announcedUrl, '900', announcedInput.payment.payTo);
      await settleFor(removedUrl, '900', removedInput.payment.payTo);
    });
    await waitFor(async () => (await h.container.catalog.reader.get(announcedId))?.signals.settleCount7d === 1);
    const marker = new Date(Date.now() + 1000);
    await h.container.catalog.writer.touch(announcedId, marker);
    await h.container.catalog.writer.touch(removedId, marker);
    const removed = await appliedUpTo(removedId, (d) => d.lastSeen === marker.toISOString());
    const announced = await appliedUpTo(announcedId, (d) => d.lastSeen === marker.toISOString());
    assert.equal(removed.removed, true, 'a settlement revived a listing an operator removed');
    assert.equal(removed.removedReason, 'operator');
    assert.equal(announced.source, 'announce');
    assert.equal(announced.payment.amount, '900');
    assert.equal(announced.describe?.description, 'Declared by the seller');
    assert.equal(announced.accepts, undefined, 'traffic added no payment option');
  });

  it('a listing removed as stale comes back only through its probe, never by a settlement\'s own word', async () => {
    const url = 'http://race-stale.test/quote';
    const input = declared(url, '700');
    const { id } = await h.container.catalog.writer.upsert(input, { source: 'import' });
    await waitFor(async () => h.container.catalog.reader.get(id));
    await h.container.catalog.writer.remove(id, 'stale');
    await waitFor(async () => (await h.container.catalog.reader.get(id))?.removed === true);
    await settleFor(url, '700', input.payment.payTo);
    // Its probe was asked for (and fails here: the name does not resolve), and the listing stays removed.
    const probe = await waitFor(async () => {
      const record = await h.container.probing.store.get(id);
      return record && record.status !== 'pending' ? record : undefined;
    });
    assert.equal(probe.reason, 'dns_failure');
    assert.equal((await h.container.catalog.reader.get(id))?.removed, true);
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
