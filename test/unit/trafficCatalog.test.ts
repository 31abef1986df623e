import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { readFacilitatorRequest } from '../../src/facilitator/request.js';
import { TrafficCataloger } from '../../src/facilitator/trafficCatalog.js';
import { sightingOf, type TrafficSighting } from '../../src/facilitator/trafficSighting.js';
import { createLogger } from '../../src/logger.js';
import { rejectionCounts, settlementCredit } from '../../src/signals/settlementEvidence.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const OTHER = '0x1111111111111111111111111111111111111111';
const NETWORK = 'eip155:84532';
const requirements = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };

/** The sighting of a v2 payment for `url`, with bazaar extension members where given. */
function sighting(url: string, extensions?: Record<string, unknown>): TrafficSighting {
  const raw = readFacilitatorRequest({ x402Version: 2, paymentPayload: { x402Version: 2, resource: { url, description: 'Paid weather' }, accepted: requirements, payload: {}, ...(extensions ? { extensions } : {}) }, paymentRequirements: requirements });
  return sightingOf(raw)!;
}

function world(refreshMs = 60_000) {
  const writer = fakeCatalogWriter();
  const probed: string[] = [];
  let now = 1_000_000;
  const cataloger = new TrafficCataloger({
    writer: () => writer,
    logger: createLogger('error', { silent: true }),
    refreshMs,
    now: () => now,
    probes: {
      announce: async (body) => {
        if (body.resource.includes('{')) throw new InvalidInput('invalid_announce', 'resource must be concrete');
        probed.push(`${body.method} ${body.resource}`);
        return {};
      },
    },
  });
  return { writer, cataloger, probed, advance: (ms: number) => (now += ms) };
}

describe('unit: what payment traffic may do to the catalog (issue 43)', () => {
  it('an unlisted resource gets a probe with GET, once per refresh interval; traffic writes no listing', async () => {
    const { writer, cataloger, probed, advance } = world();
    const seen = sighting('https://api.seller.example/weather');
    assert.deepEqual(await cataloger.probe(seen), { status: 'processing' });
    assert.deepEqual(await cataloger.probe(seen), { status: 'processing' });
    assert.deepEqual(probed, ['GET https://api.seller.example/weather']);
    advance(60_001);
    await cataloger.probe(seen);
    assert.equal(probed.length, 2);
    assert.deepEqual(writer.calls, []);
  });

  it('a method other than GET or HEAD is never probed on a payment\'s word', async () => {
    const { cataloger, probed } = world();
    for (const method of ['DELETE', 'POST', 'PUT', 'PATCH']) {
      const outcome = await cataloger.probe(sighting(`https://api.victim.example/users/1?${method}`, { bazaar: { info: { input: { method } } } }));
      assert.equal(outcome.status, 'rejected', method);
      assert.match(outcome.rejectedReason!, /GET or HEAD/);
    }
    assert.equal((await cataloger.probe(sighting('https://api.seller.example/h', { bazaar: { info: { input: { method: 'HEAD' } } } }))).status, 'processing');
    assert.deepEqual(probed, ['HEAD https://api.seller.example/h']);
  });

  it('an MCP tool is never listed or probed from traffic; a refused URL is reported', async () => {
    const { cataloger, probed } = world();
    const tool = sighting('mcp://tools.example/echo', { bazaar: { info: { input: { type: 'mcp', toolName: 'echo', inputSchema: { type: 'object' } } } } });
    assert.match((await cataloger.probe(tool)).rejectedReason!, /publish/);
    const templated = sighting('https://api.seller.example/users/{id}');
    assert.match((await cataloger.probe(templated)).rejectedReason!, /cannot be probed/);
    assert.deepEqual(probed, []);
  });

  it('a listing whose seller was paid is touched at most once per refresh interval', async () => {
    const { writer, cataloger } = world();
    const { id } = await writer.upsert({ type: 'http', resource: 'https://api.seller.example/w', payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1', payTo: PAY_TO } }, { source: 'announce' });
    cataloger.seen(id);
    cataloger.seen(id);
    await cataloger.idle();
    assert.deepEqual(writer.calls.map((c) => c.op), ['upsert', 'touch']);
  });
});

describe('unit: which listing a payment is evidence for (settlementEvidence)', () => {
  const listing = {
    payment: { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO },
    accepts: [
      { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO },
      { scheme: 'upto' as const, network: NETWORK, asset: USDC, amount: '5000', payTo: PAY_TO },
    ],
  };
  const paid = (o: Partial<{ scheme: string; payTo: string; amount: bigint; asset: string; network: string }> = {}) => ({ scheme: 'exact', network: NETWORK, asset: USDC.toLowerCase(), payTo: PAY_TO.toLowerCase(), amount: 1000n, ...o });

  it('counts a payment to a listed payTo at the price (exact) or within the ceiling (upto), case-insensitively', () => {
    assert.deepEqual(settlementCredit(listing, paid()), { counts: true });
    assert.deepEqual(settlementCredit(listing, paid({ amount: 2000n })), { counts: true });
    assert.deepEqual(settlementCredit(listing, paid({ scheme: 'upto', amount: 1n })), { counts: true });
    assert.deepEqual(settlementCredit(listing, paid({ scheme: 'upto', amount: 5000n })), { counts: true });
  });

  it('nothing else counts: another payTo, below the price, past or at zero of the ceiling, another asset, network or scheme', () => {
    for (const other of [
      paid({ payTo: OTHER }),
      paid({ amount: 999n }),
      paid({ amount: 0n }),
      paid({ scheme: 'upto', amount: 5001n }),
      paid({ scheme: 'upto', amount: 0n }),
      paid({ asset: OTHER }),
      paid({ network: 'eip155:8453' }),
      paid({ scheme: 'batch' }),
    ]) {
      const credit = settlementCredit(listing, other);
      assert.equal(credit.counts, false, JSON.stringify(other, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
    assert.match((settlementCredit(listing, paid({ payTo: OTHER })) as { reason: string }).reason, /buyer's claim/);
    assert.equal(settlementCredit({ payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1' } }, paid()).counts, false, 'a listing without payTo is paid by nobody');
  });

  it('a rejection counts only as an attempt to pay the listing\'s seller by a payer that could have paid', () => {
    assert.equal(rejectionCounts(listing, paid(), 1000n).counts, true);
    assert.equal(rejectionCounts(listing, paid(), 999n).counts, false);
    assert.equal(rejectionCounts(listing, paid(), 0n).counts, false);
    assert.equal(rejectionCounts(listing, paid({ payTo: OTHER }), 10n ** 12n).counts, false);
    assert.equal(rejectionCounts(listing, paid({ scheme: 'upto', amount: 3000n }), 2999n).counts, false);
    assert.equal(rejectionCounts(listing, paid({ scheme: 'upto', amount: 3000n }), 3000n).counts, true);
  });
});
