import assert from 'node:assert/strict';
import { AnnounceService } from '../../src/announce/announceService.js';
import { httpListingId } from '../../src/catalog/identity.js';
import type { AnnounceSettings } from '../../src/config/announceSettings.js';
import { InvalidInput, NotFound, Unavailable } from '../../src/core/errors.js';
import { encodeBase64Json } from '../../src/x402/wire.js';
import { httpInput } from '../support/listings.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';
import { manualClock } from './fakes/clock.js';
import { fakeProbeStore } from './fakes/probeStore.js';

const settings = { probeMinIntervalMs: 60_000 } as AnnounceSettings;
const challenge = {
  x402Version: 2,
  resource: { url: 'https://api.seller.example/users/42' },
  accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', extra: { name: 'USDC', version: '2' } }],
};

function world() {
  const clock = manualClock();
  const probes = fakeProbeStore();
  const catalog = fakeCatalogWriter(clock.now);
  const reader = { get: async (id: string) => catalog.documents.get(id), getMany: async () => new Map() };
  let queued = 0;
  const service = new AnnounceService(settings, probes.store, reader, () => { queued += 1; }, clock.now);
  return { clock, probes, catalog, service, queued: () => queued };
}

/** The field errors of an announce refused with invalid_announce. */
async function refused(service: AnnounceService, body: unknown): Promise<Array<{ path: string; message: string }>> {
  try {
    await service.announce(body);
  } catch (err) {
    if (err instanceof InvalidInput && err.code === 'invalid_announce') return err.fieldErrors;
    throw err;
  }
  return assert.fail('expected invalid_announce');
}

describe('unit: announcing a paid endpoint', () => {
  it('answers at once with the id the listing will have, and queues one probe per interval', async () => {
    const { service, clock, queued } = world();
    const first = await service.announce({ resource: 'https://API.seller.example/weather?city=paris' });
    assert.deepEqual(first, { id: httpListingId('https://api.seller.example/weather'), status: 'pending', deduplicated: false });
    assert.equal((await service.announce({ resource: 'https://api.seller.example/weather' })).deduplicated, true);
    clock.advance(60_000);
    assert.equal((await service.announce({ resource: 'https://api.seller.example/weather' })).deduplicated, false);
    assert.equal(queued(), 2);
  });

  it('the method (any case) is part of the id; a declared method in the challenge is used when none is given', async () => {
    const { service } = world();
    assert.equal((await service.announce({ resource: 'https://a.example/x', method: 'post' })).id, httpListingId('https://a.example/x', 'POST'));
    const declared = { ...challenge, extensions: { bazaar: { info: { input: { method: 'PUT' } } } } };
    assert.equal((await service.announce({ resource: 'https://a.example/y', challenge: declared })).id, httpListingId('https://a.example/y', 'PUT'));
  });

  it('a route template must cover the announced path; the listing id is the template\'s, found by the URL too', async () => {
    const { service } = world();
    const result = await service.announce({ resource: 'https://api.seller.example/users/42', routeTemplate: '/users/:id' });
    assert.equal(result.id, httpListingId('https://api.seller.example/users/42', 'GET', '/users/:id'));
    const status = await service.status({ resource: 'https://api.seller.example/users/42' });
    assert.equal(status.id, result.id);
    assert.equal(status.routeTemplate, '/users/:id');
    assert.match((await refused(service, { resource: 'https://a.example/paid', routeTemplate: '/anything/:x' }))[0]!.message, /does not match the resource path \/paid/);
    assert.equal((await refused(service, { resource: 'https://a.example/paid', routeTemplate: '/../x' }))[0]!.path, 'routeTemplate');
  });

  it('refuses bodies it cannot queue, naming each field', async () => {
    const { service, probes } = world();
    assert.deepEqual(await refused(service, {}), [{ path: 'resource', message: 'is required' }]);
    assert.deepEqual(await refused(service, { resource: 'https://a.example', url: 'x' }), [{ path: 'url', message: 'is not an accepted field' }]);
    assert.equal((await refused(service, { resource: 'https://a.example', method: 'OPTIONS' }))[0]!.path, 'method');
    assert.equal((await refused(service, { resource: 'ftp://a.example/x' }))[0]!.path, 'resource');
    assert.match((await refused(service, { resource: 'https://a.example/users/{id}' }))[0]!.message, /send the template as routeTemplate/);
    assert.equal((await refused(service, 'https://a.example'))[0]!.path, '(root)');
    assert.equal(probes.records.size, 0);
  });

  it('a challenge is checked before anything is queued: object or header form, refusals under `challenge`', async () => {
    const { service, probes } = world();
    await service.announce({ resource: 'https://api.seller.example/users/42', challenge: encodeBase64Json(challenge) });
    const record = [...probes.records.values()][0]!;
    assert.deepEqual(JSON.parse(record.expected!), [{ scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: challenge.accepts[0]!.asset, payTo: challenge.accepts[0]!.payTo }]);
    const errors = await refused(service, { resource: 'https://a.example/x', challenge: { ...challenge, x402Version: 9 } });
    assert.deepEqual(errors, [{ path: 'challenge', message: 'x402Version must be 1 or 2' }]);
  });

  it('Redis down: 503 announce_unavailable with a retry time, never a 500', async () => {
    const { service, probes } = world();
    probes.down = true;
    await assert.rejects(service.announce({ resource: 'https://a.example/x' }), (err: unknown) => err instanceof Unavailable && err.what === 'announce' && err.retryAfterSeconds > 0);
    await assert.rejects(service.status({ id: httpListingId('https://a.example/x') }), Unavailable);
  });

  it('status: by id or URL; a listing from traffic without an announce; 404 for nothing at all', async () => {
    const { service, catalog } = world();
    const { id } = await service.announce({ resource: 'https://a.example/x' });
    assert.equal((await service.status({ id })).status, 'pending');
    assert.equal((await service.status({ resource: 'https://a.example/x' })).id, id);
    const seen = await catalog.upsert(httpInput(), { source: 'traffic' });
    assert.deepEqual(await service.status({ id: seen.id }), { id: seen.id, resource: 'https://api.weather.example/forecast', method: 'GET', status: 'listed' });
    await catalog.remove(seen.id, 'stale');
    assert.deepEqual((await service.status({ id: seen.id })).reason, 'stale');
    await assert.rejects(service.status({ id: 'lst_000000000000000000000000' }), NotFound);
    await assert.rejects(service.status({}), InvalidInput);
  });
});
