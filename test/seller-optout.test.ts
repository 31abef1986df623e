/**
 * Issue 43, item 10: the seller decides about its own listings. A seller proves an HTTP listing a
 * probe made is its own (a message signed by the listing's payTo key, or a seller token bound to the
 * host), takes it out and keeps it out: re-probes, announces, payments, site manifests, upstream
 * claims and imports list nothing (the resource is not even fetched) until the seller lifts it, and
 * the change feed carries the tombstone with its reason. Nobody else can opt a listing out or in.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { httpListingId } from '../src/catalog/identity.js';
import { optOutMessage } from '../src/publish/optOut.js';
import { announce, settled } from './support/announcing.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { fundBuyer } from './support/chainFunding.js';

describe('a seller opts its own listing out and keeps it out (issue 43, item 10)', function () {
  this.timeout(60_000);
  let h: Harness;
  let site: LocalServer;
  const owner = privateKeyToAccount(generatePrivateKey());
  const hits: string[] = [];
  let url = '';
  let id = '';

  before(async () => {
    site = await startServer({
      '/paid/tides': (req, res) => {
        hits.push(req.url ?? '');
        answers.v2(() => v2Challenge(site.url('/paid/tides'), { payTo: owner.address }))(req, res);
      },
      '/.well-known/x402': (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ version: 1, resources: ['/paid/tides'] })),
    });
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${site.port}`, PROBE_MIN_INTERVAL_MS: '0', RATE_LIMIT_ANNOUNCE: 'off', RATE_LIMIT_PUBLISH: 'off' });
    url = site.url('/paid/tides');
    id = httpListingId(url);
    assert.equal((await settled(h.app, (await announce(h.app, { resource: url })).id)).status, 'listed');
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 200);
  });
  after(async () => {
    await h?.close();
    await site?.close();
  });

  const signed = async (action: 'opt-out' | 'lift', signer = owner, at = new Date().toISOString()) => ({
    payTo: owner.address,
    signature: await signer.signMessage({ message: optOutMessage(action, id, at) }),
    signedAt: at,
  });
  const optOut = (body: object, bearer?: string) => {
    const req = request(h.app).post('/discovery/optout');
    return (bearer ? req.set('Authorization', `Bearer ${bearer}`) : req).send(body);
  };

  it('nobody else can opt it out: no proof, a stranger\'s signature, a stale one, a token for another host', async () => {
    assert.equal((await optOut({ id })).status, 401);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await optOut({ id, proof: await signed('opt-out', stranger) });
    assert.equal(forged.status, 403);
    assert.equal((await optOut({ id, proof: { ...(await signed('opt-out', stranger)), payTo: stranger.address } })).status, 403, 'a key that is not a payTo of the listing');
    const stale = await optOut({ id, proof: await signed('opt-out', owner, new Date(Date.now() - 3_600_000).toISOString()) });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.code, 'invalid_optout');
    const { secret } = await h.container.publishing.tokens.issue(['other.example.net']);
    assert.equal((await optOut({ id }, secret)).status, 403);
    await request(h.app).get(`/discovery/resources/${id}`).expect(200);
  });

  it('the payTo key takes it out: gone from the catalog, with a tombstone and its reason in the change feed', async () => {
    const res = await optOut({ id, reason: 'We list it ourselves', proof: await signed('opt-out') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual({ ...res.body, at: undefined }, { id, resource: url, method: 'GET', optedOut: true, reason: 'We list it ourselves', at: undefined });
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 404);
    const tombstone = await waitFor(async () => {
      const feed = (await request(h.app).get('/discovery/changes').query({ limit: '1000' }).expect(200)).body as { changes: Array<{ id: string; removed?: true; reason?: string }> };
      return feed.changes.find((c) => c.id === id && c.removed);
    });
    assert.equal(tombstone.reason, 'opted_out');
  });

  it('it stays out: an announce, a payment, the site\'s manifest, an upstream claim and an import list nothing, and nothing is fetched', async () => {
    const before = hits.length;
    const state = await settled(h.app, (await announce(h.app, { resource: url })).id);
    assert.equal(state.status, 'rejected');
    assert.equal(state.reason, 'opted_out');
    // A payment naming it.
    const buyer = newWallet();
    await fundBuyer(buyer.address, 100_000n);
    const body = await exactRequest(buyer, requirements(owner.address, { amount: '2500' }), {}, { url, description: '', mimeType: '' });
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    // The seller's own manifest naming it, and an upstream catalog's claim.
    await request(h.app).post('/discovery/announce').send({ origin: site.url('') }).expect(202);
    await h.container.announce.claim({ resource: url, method: 'GET', provenance: { source: 'upstream', name: 'cdp', url: 'https://upstream.example/list', firstSeen: new Date().toISOString() }, rejectedRetryMs: 0 });
    await h.container.probing.worker.runDue();
    // The operator's import.
    const imported = await h.container.catalog.writer.upsertMany([{ type: 'http', resource: url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1', payTo: newWallet().address } }], { source: 'import' });
    assert.equal(imported.accepted.length, 0);
    assert.match(imported.rejected[0]!.errors[0]!.message, /opted_out/);
    await h.container.facilitator.cataloger.idle();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await request(h.app).get(`/discovery/resources/${id}`).expect(404);
    assert.equal(hits.length, before, 'the opted-out resource was never fetched again');
  });

  it('only its seller lifts it (signature or token); then its next probe lists it again', async () => {
    assert.equal((await request(h.app).delete('/discovery/optout').send({ id, proof: await signed('lift', privateKeyToAccount(generatePrivateKey())) })).status, 403);
    assert.equal((await request(h.app).delete('/discovery/optout').send({ id, proof: await signed('opt-out') })).status, 403, 'an opt-out signature does not lift');
    const { secret } = await h.container.publishing.tokens.issue([`127.0.0.1:${site.port}`]);
    const lifted = await request(h.app).delete('/discovery/optout').set('Authorization', `Bearer ${secret}`).send({ id });
    assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
    assert.equal(lifted.body.optedOut, false);
    assert.equal((await settled(h.app, (await announce(h.app, { resource: url })).id)).status, 'listed');
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 200);
    // And a token bound to the host opts it out again, without a signature.
    assert.equal((await optOut({ resource: url }, secret)).status, 200);
    await waitFor(async () => (await request(h.app).get(`/discovery/resources/${id}`)).status === 404);
  });
});
