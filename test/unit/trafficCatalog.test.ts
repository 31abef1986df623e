import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { readFacilitatorRequest } from '../../src/facilitator/request.js';
import { TrafficCataloger } from '../../src/facilitator/trafficCatalog.js';
import { sightingOf, type TrafficSighting } from '../../src/facilitator/trafficSighting.js';
import { createLogger } from '../../src/logger.js';
import type { AcceptedPayment } from '../../src/shapes/listingInput.js';
import type { TrafficAccepts } from '../../src/store/redis/trafficAccepts.js';
import { mcpInput } from '../support/listings.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const requirements = { scheme: 'exact', network: 'eip155:84532', asset: USDC, amount: '1000', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };

/** The sighting of a v2 payment for `url`, with other requirement members where given. */
function sighting(url: string, pr: Record<string, unknown> = {}, extensions?: Record<string, unknown>): TrafficSighting {
  const req = { ...requirements, ...pr };
  const raw = readFacilitatorRequest({ x402Version: 2, paymentPayload: { x402Version: 2, resource: { url, description: 'Paid weather' }, accepted: req, payload: {}, ...(extensions ? { extensions } : {}) }, paymentRequirements: req });
  return sightingOf(raw)!;
}

function world(options: { refusal?: string; refreshMs?: number } = {}) {
  const writer = fakeCatalogWriter();
  const stored = new Map<string, Map<string, AcceptedPayment>>();
  const accepts = {
    async merge(listingId: string, entries: ReadonlyMap<string, AcceptedPayment>, max: number) {
      const all = stored.get(listingId) ?? new Map<string, AcceptedPayment>();
      for (const [key, accept] of entries) all.set(key, accept);
      stored.set(listingId, all);
      return [...all.keys()].sort().slice(0, max).map((key) => all.get(key)!);
    },
  } as unknown as TrafficAccepts;
  const probed: string[] = [];
  const reflushed: string[] = [];
  const cataloger = new TrafficCataloger({
    accepts,
    writer: () => writer,
    reader: { get: async (id) => writer.documents.get(id), getMany: async () => new Map() },
    logger: createLogger('error', { silent: true }),
    refreshMs: options.refreshMs ?? 60_000,
    gate: { refusal: async () => options.refusal },
    probes: {
      announce: async (body) => {
        if (body.resource.includes('{')) throw new InvalidInput('invalid_announce', 'resource must be concrete');
        probed.push(`${body.method} ${body.resource}`);
        return {};
      },
    },
    reflushSignals: async (ids) => { reflushed.push(...ids); },
  });
  return { writer, cataloger, probed, reflushed };
}

describe('unit: cataloging from payment traffic (evidence before listing)', () => {
  it('a settlement lists the resource it paid for, from traffic, and asks for its signals again', async () => {
    const { writer, cataloger, reflushed } = world();
    const seen = sighting('https://api.seller.example/weather');
    assert.deepEqual(await cataloger.settled(seen), { status: 'processing' });
    const doc = writer.documents.get(seen.listingId)!;
    assert.equal(doc.source, 'traffic');
    assert.equal(doc.describe?.description, 'Paid weather');
    assert.deepEqual(doc.accepts?.map((a) => a.extra), [{ name: 'USDC', version: '2' }]);
    assert.deepEqual(reflushed, [seen.listingId]);
    assert.deepEqual(await cataloger.settled(sighting('https://api.seller.example/weather', { amount: '2000' })), { status: 'success' }, 'listed already: refreshed');
  });

  it('steady traffic does not rewrite the listing per payment', async () => {
    const { writer, cataloger } = world();
    const seen = sighting('https://api.seller.example/weather');
    await Promise.all([cataloger.settled(seen), cataloger.settled(seen), cataloger.settled(seen)]);
    await cataloger.settled(seen);
    await cataloger.idle();
    assert.equal(writer.calls.filter((c) => c.op === 'upsert').length, 1);
  });

  it('payment options of several schemes and networks merge into the listing\'s accepts', async () => {
    const { writer, cataloger } = world();
    await cataloger.settled(sighting('https://api.seller.example/weather'));
    await cataloger.settled(sighting('https://api.seller.example/weather', { scheme: 'upto', amount: '5000' }));
    await cataloger.idle();
    const doc = writer.documents.get(sighting('https://api.seller.example/weather').listingId)!;
    assert.deepEqual(doc.accepts?.map((a) => `${a.scheme} ${a.amount}`), ['exact 1000', 'upto 5000']);
  });

  it('a listing its seller declared keeps its content: traffic only marks it seen', async () => {
    const { writer, cataloger } = world();
    const tool = mcpInput({ resource: 'mcp://tools.example', name: 'get_weather', description: 'Declared by the seller' });
    const { id } = await writer.upsert(tool, { source: 'publish' });
    const bazaar = { info: { input: { type: 'mcp', toolName: 'get_weather', description: 'Traffic says otherwise' } } };
    const seen = sighting('https://tools.example/mcp', { amount: '1' }, { bazaar });
    assert.equal(seen.listingId, id);
    assert.deepEqual(await cataloger.settled(seen), { status: 'success' });
    assert.equal(writer.documents.get(id)?.description, 'Declared by the seller');
    assert.equal(writer.documents.get(id)?.payment.amount, '50000');
    assert.deepEqual([writer.calls.at(-1)?.op, writer.calls.at(-1)?.id], ['touch', id]);
  });

  it('a payment does not revive a listing removed by its seller or an operator; a stale traffic listing comes back', async () => {
    const { writer, cataloger } = world();
    const seen = sighting('https://api.seller.example/weather');
    await cataloger.settled(seen);
    await writer.remove(seen.listingId, 'stale');
    assert.deepEqual(await cataloger.settled(sighting('https://api.seller.example/weather', { amount: '3' })), { status: 'processing' });
    assert.equal(writer.documents.get(seen.listingId)?.removed, false);
    await writer.remove(seen.listingId, 'operator');
    const outcome = await cataloger.settled(sighting('https://api.seller.example/weather', { amount: '4' }));
    assert.equal(outcome.status, 'rejected');
    assert.equal(writer.documents.get(seen.listingId)?.removed, true);
  });

  it('the gate\'s refusal (private address, a seller-token host) lists nothing and says why', async () => {
    const { writer, cataloger } = world({ refusal: 'the resource host resolves to a private address' });
    const outcome = await cataloger.settled(sighting('https://10.0.0.5/weather'));
    assert.deepEqual(outcome, { status: 'rejected', rejectedReason: 'the resource host resolves to a private address' });
    assert.equal(writer.documents.size, 0);
  });

  it('a verification alone writes nothing: it asks for a probe of an unlisted HTTP resource, never of an MCP tool', async () => {
    const { writer, cataloger, probed } = world();
    assert.deepEqual(await cataloger.verified(sighting('https://api.seller.example/weather')), { status: 'processing' });
    assert.deepEqual(probed, ['GET https://api.seller.example/weather']);
    const tool = sighting('https://tools.example/mcp', {}, { bazaar: { info: { input: { type: 'mcp', toolName: 'get_weather' } } } });
    assert.equal((await cataloger.verified(tool)).status, 'rejected');
    assert.equal(writer.documents.size, 0);
    await cataloger.settled(sighting('https://api.seller.example/weather'));
    assert.deepEqual(await cataloger.verified(sighting('https://api.seller.example/weather', { amount: '7' })), { status: 'success' }, 'listed: no probe');
    assert.equal(probed.length, 1);
  });
});
