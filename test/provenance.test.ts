/**
 * Issue 24, deliverable 2: each listing carries the evidence it stands on, with timestamps (probed
 * 402 with its last status, settled first and last, seller publish by SDK or by hand, import with its
 * source), shown by the API and the Bazaar surface; the new mapping fields are added to an existing
 * index without a rebuild.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import request from 'supertest';
import { importListings } from '../src/catalog/transfer.js';
import { ensureListingIndex, loadIndexDefinition } from '../src/store/elasticsearch/listingIndex.js';
import { Publisher } from '../src/sdk/publisher.js';
import { ServiceClient } from '../src/sdk/serviceClient.js';
import { startHarness, uniqueNames, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { answers, PAY_TO, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { fundBuyer } from './support/chainFunding.js';

const isInstant = (value: unknown, from: number, to = Date.now()): boolean =>
  typeof value === 'string' && Date.parse(value) >= from - 1000 && Date.parse(value) <= to + 1000;

describe('provenance: the evidence a listing stands on', function () {
  this.timeout(60_000);
  let h: Harness;
  let seller: LocalServer;
  let serviceUrl: string;
  let server: Server;

  before(async () => {
    seller = await startServer({ '/tides': answers.v2(() => v2Challenge(seller.url('/tides'), { amount: '1000' })) });
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${seller.port}`, RATE_LIMIT_ANNOUNCE: 'off', SIGNALS_FLUSH_MS: '200' });
    await new Promise<void>((resolve) => {
      server = h.app.listen(0, '127.0.0.1', () => resolve());
    });
    serviceUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await seller?.close();
  });

  const get = async (id: string) => (await request(h.app).get(`/discovery/resources/${id}`).expect(200)).body;

  it('probed, then paid: the probe status and the first and last settlement, side by side', async () => {
    const started = Date.now();
    const url = seller.url('/tides');
    const { id } = (await request(h.app).post('/discovery/announce').send({ resource: url }).expect(202)).body;
    const probed = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${id}`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.deepEqual(Object.keys(probed.provenance), ['probed402']);
    assert.equal(probed.provenance.probed402.lastStatus, 'valid_402');
    assert.ok(isInstant(probed.provenance.probed402.lastAt, started), probed.provenance.probed402.lastAt);

    const payer = newWallet();
    await fundBuyer(payer.address, 100_000n);
    const resource = { url, description: 'Forecast for a city, by day', mimeType: 'application/json' };
    const pay = async () => {
      const body = await exactRequest(payer, requirements(PAY_TO), {}, resource);
      assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    };
    await pay();
    const once = await waitFor(async () => ((await get(id)).provenance.settled ? await get(id) : undefined));
    assert.equal(once.provenance.settled.first, once.provenance.settled.last);
    assert.equal(once.provenance.settled.last, once.signals.lastSettled);
    assert.equal(once.provenance.probed402.lastStatus, 'valid_402', 'the probe evidence stays');

    await new Promise((r) => setTimeout(r, 30));
    await pay();
    const twice = await waitFor(async () => {
      const body = await get(id);
      return body.provenance.settled.last !== once.provenance.settled.last ? body : undefined;
    });
    assert.equal(twice.provenance.settled.first, once.provenance.settled.first, 'first stays');
    assert.ok(Date.parse(twice.provenance.settled.last) > Date.parse(twice.provenance.settled.first));

    // A probe that fails but keeps the listing (a timeout) records what it found; nothing else moves.
    const failedAt = new Date().toISOString();
    await h.container.catalog.writer.recordEvidence(id, { probed402: { lastStatus: 'timeout', lastAt: failedAt } });
    const afterFailure = await waitFor(async () => {
      const body = await get(id);
      return body.provenance.probed402.lastStatus === 'timeout' ? body : undefined;
    });
    assert.equal(afterFailure.provenance.probed402.lastAt, failedAt);
    assert.deepEqual(afterFailure.provenance.settled, twice.provenance.settled);

    // The Bazaar surface carries the same evidence.
    // The Bazaar surface (a search, so once the index refreshed) carries the same evidence.
    const item = await waitFor(async () => {
      const bazaar = await request(h.app).get('/x402/discovery/resources').query({ limit: 100 }).expect(200);
      const found = (bazaar.body.items as Array<{ metadata: { id: string; provenance: { probed402?: { lastStatus: string } } } }>).find((i) => i.metadata.id === id);
      return found?.metadata.provenance.probed402?.lastStatus === 'timeout' ? found : undefined;
    });
    assert.deepEqual(item.metadata.provenance, afterFailure.provenance);
  });

  it('a seller publish says whether the seller SDK sent it', async () => {
    const { secret } = await h.container.publishing.tokens.issue(['tools.provenance.test'], 'provenance');
    const tool = (name: string) => ({
      type: 'mcp' as const,
      resource: `mcp://tools.provenance.test/${name}`,
      name,
      description: 'Tide times for a harbour',
      inputSchema: { type: 'object' },
      payment: { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO },
    });
    const started = Date.now();
    const [outcome] = await new Publisher(new ServiceClient({ serviceUrl }), secret).publishAll([tool('sdk_tool')]);
    assert.equal(outcome?.status, 'published');
    const bySdk = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${(outcome as { id: string }).id}`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.equal(bySdk.provenance.published.via, 'sdk');
    assert.ok(isInstant(bySdk.provenance.published.at, started));

    const byHand = await request(h.app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool('hand_tool')).expect(201);
    assert.deepEqual(Object.keys(byHand.body.provenance), ['published']);
    assert.equal(byHand.body.provenance.published.via, 'manual');
  });

  it('an import names its source', async () => {
    const listing = {
      type: 'http',
      resource: 'https://partner.example/quote',
      payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO },
      describe: { title: 'Stock quote' },
    };
    const result = await importListings(h.container.catalog.writer, [{ index: 0, value: listing }], {
      source: 'import',
      evidence: { importedFrom: 'partner-catalog.jsonl' },
    });
    const id = result.accepted[0]!.id;
    const imported = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${id}`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.equal(imported.provenance.imported.source, 'partner-catalog.jsonl');
    assert.deepEqual(Object.keys(imported.provenance), ['imported']);
  });

  it('an index made before provenance gets the new fields added in place, and evidence merges into it', async () => {
    const { listingsAlias, listingsIndex } = uniqueNames('prov-old');
    const definition = loadIndexDefinition();
    const { provenance: _p, title: _t, iconUrl: _i, ...oldProperties } = definition.mappings.properties;
    const oldDescribe = { ...definition.mappings.properties.describe!, properties: { ...definition.mappings.properties.describe!.properties } };
    delete oldDescribe.properties.iconUrl;
    const es = h.elasticsearch;
    try {
      await es.indices.create({
        index: listingsIndex,
        settings: definition.settings,
        mappings: { ...definition.mappings, properties: { ...oldProperties, describe: oldDescribe } } as never,
        aliases: { [listingsAlias]: { is_write_index: true } },
      });
      const old = {
        id: 'lst_000000000000000000000001', type: 'http', resource: 'https://old.example/a', canonicalKey: 'GET https://old.example/a', method: 'GET', host: 'old.example',
        payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '10' }, signals: { settleCount7d: 0, rejectionRate7d: 0 }, source: 'import',
        firstSeen: new Date().toISOString(), lastSeen: new Date().toISOString(), updatedAt: new Date().toISOString(), removed: false,
      };
      await es.index({ index: listingsAlias, id: old.id, document: old, refresh: true });
      // The old mapping is strict: a listing with evidence cannot be written to it yet.
      await assert.rejects(es.update({ index: listingsAlias, id: old.id, doc: { provenance: { imported: { source: 'x', at: old.updatedAt } } } }));

      const result = await ensureListingIndex(es, listingsAlias, listingsIndex);
      assert.equal(result.created, false);
      for (const field of ['provenance', 'title', 'iconUrl', 'describe.iconUrl']) {
        assert.ok(result.addedFields.includes(field), `${field} added (added: ${result.addedFields.join(', ')})`);
      }
      await es.update({ index: listingsAlias, id: old.id, doc: { provenance: { imported: { source: 'x', at: old.updatedAt } } }, refresh: true });
      // A partial update merges into the kept-but-not-indexed object, beside the evidence already there.
      await es.update({ index: listingsAlias, id: old.id, doc: { provenance: { settled: { first: old.updatedAt, last: old.updatedAt } } }, refresh: true });
      const stored = (await es.get<{ provenance: unknown }>({ index: listingsAlias, id: old.id }))._source!;
      assert.deepEqual(Object.keys(stored.provenance as object).sort(), ['imported', 'settled']);
    } finally {
      await es.indices.delete({ index: listingsIndex, ignore_unavailable: true });
    }
  });
});

describe('provenance follows the evidence (issue 43, item 9)', function () {
  this.timeout(60_000);
  let h: Harness;
  let seller: LocalServer;

  before(async () => {
    seller = await startServer({
      '/claimed': answers.v2(() => v2Challenge(seller.url('/claimed'), { describe: { title: 'Tide tables', description: 'High and low tides by harbour' } })),
    });
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${seller.port}`, PROBE_MIN_INTERVAL_MS: '0' });
  });
  after(async () => {
    await h?.close();
    await seller?.close();
  });

  const claim = (name: string, claims: Record<string, unknown>) =>
    h.container.announce.claim({
      resource: seller.url('/claimed'),
      method: 'GET',
      provenance: { source: 'upstream', name, url: `https://${name}.example/discovery/resources`, firstSeen: new Date().toISOString(), claims },
      rejectedRetryMs: 0,
    });
  const listing = async (predicate: (body: any) => boolean) =>
    waitFor(async () => {
      await h.container.probing.worker.runDue();
      const res = await request(h.app).get(`/discovery/resources/${(await claimedId())}`);
      return res.status === 200 && predicate(res.body) ? res.body : undefined;
    });
  const claimedId = async () => (await import('../src/catalog/identity.js')).httpListingId(seller.url('/claimed'));

  it('the first upstream\'s claims give way to the seller\'s own 402; every upstream that names it is kept with its times', async () => {
    await claim('first', { serviceName: 'Totally Not Tides', description: 'Buy our coin', tags: ['scam'], icon: 'https://first.example/icon.png' });
    const listed = await listing(() => true);
    assert.equal(listed.describe.title, 'Tide tables');
    assert.equal(listed.provenance.discovered.name, 'first');
    // The 402 names its own title, description and tags: the upstream's differing ones are gone;
    // the icon, which the 402 does not name, stays the upstream's claim.
    assert.deepEqual(listed.provenance.discovered.claims, { icon: 'https://first.example/icon.png' });
    assert.deepEqual(listed.provenance.namedBy.map((e: { name: string }) => e.name), ['first']);

    // A second upstream names it: its source is recorded by the probe that follows.
    const second = await claim('second', { serviceName: 'Also not tides' });
    assert.equal('queued' in second && second.queued, true, 'a new source brings the probe forward');
    const both = await listing((body) => body.provenance.namedBy?.length === 2);
    const names = both.provenance.namedBy.map((e: { name: string }) => e.name).sort();
    assert.deepEqual(names, ['first', 'second']);
    for (const entry of both.provenance.namedBy) assert.ok(entry.firstSeen <= entry.lastSeen);
    assert.equal(both.provenance.discovered.name, 'first', 'where it was first discovered stays');
    // The same upstream again changes nothing and queues nothing.
    const again = await claim('second', {});
    assert.equal('queued' in again && again.queued, false);
  });
});
