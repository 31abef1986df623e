/**
 * "Can I pay this?" (issue 24, README "Can I pay this?"): `payWith` and `maxUsd` on every catalog
 * read, against the real Elasticsearch. The property: over a generated catalog (primary payments
 * and extra `accepts` options on USDC, a mistyped USDC, other tokens and a network without known
 * USDC; exact and upto, with and without a median settled amount), every read returns exactly the
 * listings a buyer with those holdings and that budget can pay, by a reference written here
 * independently of the service's query.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import request from 'supertest';
import type { HttpListingInput, McpListingInput } from '../src/shapes/listingInput.js';
import { startHarness, type Harness } from './support/harness.js';
import { seedUnembedded } from './support/discoveryFixtures.js';

/** USDC as Circle deploys it (and the x402 packages list it), written out again for the reference. */
const REFERENCE_USDC: Record<string, string> = {
  'eip155:84532': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  'eip155:8453': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  'eip155:137': '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};
/** The demo catalog's Base "USDC" (a typo of the real address): an unknown token. */
const MISTYPED_BASE_USDC = '0x833589fCD6eDb6E08f4c7C8dDAFFa1cF0a2c9aE5';
const SEPOLIA = 'eip155:11155111'; // a network the service knows no USDC on
const OTHER_TOKEN = '0x1111111111111111111111111111111111111111';
const NETWORKS = [...Object.keys(REFERENCE_USDC), SEPOLIA];

interface Option {
  scheme: 'exact' | 'upto';
  network: string;
  asset: string;
  amount: string;
}
interface Generated {
  options: Option[];
  median?: string;
  mcp: boolean;
}

const assetArb = (network: string) =>
  fc.constantFrom(
    ...[REFERENCE_USDC[network], network === 'eip155:8453' ? MISTYPED_BASE_USDC : undefined, OTHER_TOKEN, 'USDT'].filter((a): a is string => a !== undefined),
  );
const optionArb: fc.Arbitrary<Option> = fc.constantFrom(...NETWORKS).chain((network) =>
  fc.record({
    scheme: fc.constantFrom('exact' as const, 'upto' as const),
    network: fc.constant(network),
    // Mostly near the caps the queries use, sometimes far above them.
    asset: fc.oneof(assetArb(network), assetArb(network).map((a) => a.toLowerCase())),
    amount: fc.oneof(fc.integer({ min: 0, max: 12_000 }).map(String), fc.constantFrom('9007199254740993', '5000000')),
  }),
);
const listingArb: fc.Arbitrary<Generated> = fc.record(
  {
    options: fc.array(optionArb, { minLength: 1, maxLength: 4 }),
    median: fc.integer({ min: 0, max: 12_000 }).map(String),
    mcp: fc.boolean(),
  },
  { requiredKeys: ['options', 'mcp'] },
);

interface Query {
  payWith?: string[];
  maxUsd?: string;
}
const pairArb = fc.oneof(
  fc.constantFrom(...NETWORKS).chain((network) => assetArb(network).map((asset) => `${network}/${asset}`)),
  fc.constantFrom(...Object.keys(REFERENCE_USDC)).map((network) => `${network}/USDC`),
);
const queryArb: fc.Arbitrary<Query> = fc
  .record(
    {
      payWith: fc.array(pairArb, { minLength: 1, maxLength: 3 }),
      maxUsd: fc.oneof(fc.constantFrom('0', '0.001', '0.005', '0.0123', '1', '$0.002'), fc.integer({ min: 0, max: 12_000 }).map((u) => (u / 1e6).toFixed(6))),
    },
    { requiredKeys: [] },
  )
  .filter((q) => q.payWith !== undefined || q.maxUsd !== undefined);

const usd = (text: string) => {
  const [whole, fraction = ''] = text.replace('$', '').split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
};
const isUsdc = (o: { network: string; asset: string }) => REFERENCE_USDC[o.network]?.toLowerCase() === o.asset.toLowerCase();

/** Whether a buyer holding `query.payWith` with a budget of `query.maxUsd` can pay the listing. */
function canPay(listing: Generated, query: Query): boolean {
  const held = query.payWith?.map((pair) => {
    const [network, asset] = [pair.slice(0, pair.indexOf('/')), pair.slice(pair.indexOf('/') + 1)];
    return { network, asset: asset === 'USDC' ? REFERENCE_USDC[network]! : asset };
  });
  return listing.options.some((o) => {
    if (held && !held.some((h) => h.network === o.network && h.asset.toLowerCase() === o.asset.toLowerCase())) return false;
    if (query.maxUsd === undefined) return true;
    const price = o.scheme === 'upto' && listing.median !== undefined ? listing.median : o.amount;
    return isUsdc(o) && BigInt(price) <= usd(query.maxUsd);
  });
}

function inputOf(listing: Generated, index: number): HttpListingInput | McpListingInput {
  const [primary, ...more] = listing.options;
  const payment = { ...primary!, payTo: '0x2222222222222222222222222222222222222222' };
  const signals = listing.median !== undefined ? { settleCount7d: 3, rejectionRate7d: 0, medianSettledAmount7d: listing.median } : undefined;
  if (listing.mcp) {
    // MCP listings carry one payment option.
    return { type: 'mcp', resource: `mcp://pay.example.org/widget_${index}`, name: `widget_${index}`, description: `Widget tool ${index}`, inputSchema: { type: 'object' }, payment, ...(signals ? { signals } : {}) };
  }
  return {
    type: 'http',
    resource: `https://pay.example.org/widget/${index}`,
    payment,
    ...(more.length > 0 ? { accepts: listing.options.map((o) => ({ ...o, payTo: payment.payTo })) } : {}),
    describe: { title: `Widget service ${index}`, description: 'widget' },
    ...(signals ? { signals } : {}),
  };
}

describe('can I pay this? payWith and maxUsd (issue 24)', function () {
  this.timeout(120_000);
  let h: Harness;
  const catalog = new Map<string, Generated>();

  before(async () => {
    h = await startHarness();
    const generated = fc.sample(listingArb, { numRuns: 90, seed: 2024 });
    // MCP listings have one option: the generator's extra ones would not be stored.
    const listings = generated.map((g) => (g.mcp ? { ...g, options: g.options.slice(0, 1) } : g));
    const ids = await seedUnembedded(h, listings.map(inputOf));
    ids.forEach((id, i) => catalog.set(id, listings[i]!));
  });
  after(async () => h?.close());

  const read = async (path: string, query: Query & { q?: string }) => {
    const res = await request(h.app).get(path).query({ ...query, limit: '100' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.nextCursor, undefined, 'one page holds the whole catalog');
    return (res.body.results as Array<{ id: string }>).map((r) => r.id).sort();
  };
  const expected = (query: Query, only: (g: Generated) => boolean = () => true) =>
    [...catalog].filter(([, g]) => only(g) && canPay(g, query)).map(([id]) => id).sort();

  it('the generated catalog has listings on every side of the questions', () => {
    const all = [...catalog.values()];
    assert.ok(all.some((g) => canPay(g, { maxUsd: '0.005' })) && all.some((g) => !canPay(g, { maxUsd: '0.005' })));
    assert.ok(all.some((g) => g.options.length > 1 && !canPay({ ...g, options: g.options.slice(0, 1) }, { maxUsd: '0.005' }) && canPay(g, { maxUsd: '0.005' })), 'a listing payable only through an accepts option');
    assert.ok(all.some((g) => g.median !== undefined && g.options.some((o) => o.scheme === 'upto' && isUsdc(o))));
  });

  it('/discovery/resources returns exactly the listings the buyer can pay', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        assert.deepEqual(await read('/discovery/resources', query), expected(query), JSON.stringify(query));
      }),
      { numRuns: 40, seed: 7 },
    );
  });

  it('/discovery/search and /mcp/tools apply the same filter to ranked results', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        assert.deepEqual(await read('/discovery/search', { ...query, q: 'widget' }), expected(query), JSON.stringify(query));
        assert.deepEqual(await read('/mcp/tools', { ...query, q: 'widget' }), expected(query, (g) => g.mcp), JSON.stringify(query));
      }),
      { numRuns: 12, seed: 11 },
    );
  });

  it('the x402 Bazaar surface takes them too', async () => {
    const query = { maxUsd: '0.012', payWith: ['eip155:8453/USDC', 'eip155:84532/USDC', 'eip155:137/USDC'] };
    // x402 v1 network names and a CAIP-19 asset namespace are the same pairs.
    const spelled = { maxUsd: '0.012', payWith: ['base/USDC', `base-sepolia/erc20:${REFERENCE_USDC['eip155:84532']}`, 'polygon/usdc'] };
    const res = await request(h.app).get('/x402/discovery/resources').query({ ...spelled, limit: '100' }).expect(200);
    const ids = (res.body.items as Array<{ metadata: { id: string } }>).map((i) => i.metadata.id).sort();
    const want = expected(query);
    assert.ok(want.length > 0);
    assert.deepEqual(ids, want);
    assert.equal(res.body.pagination.total, want.length);
  });

  it('bad values are problem+json 400s naming the parameter', async () => {
    const cases: Array<Record<string, string | string[]>> = [
      { maxUsd: 'abc' },
      { maxUsd: '0.0000001' },
      { maxUsd: '-1' },
      { maxUsd: '1e3' },
      { maxUsd: '1000000000000' },
      { maxUsd: ['1', '2'] },
      { payWith: 'eip155:8453' },
      { payWith: 'not-a-network/0xabc' },
      { payWith: 'eip155:8453/' },
      { payWith: 'eip155:8453/0x<script>' },
      { payWith: 'sepolia/USDC' },
      { payWith: Array.from({ length: 21 }, (_, i) => `eip155:${i + 1}/0xabc`) },
    ];
    for (const query of cases) {
      const res = await request(h.app).get('/discovery/resources').query(query);
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.body.code, 'invalid_filter_value');
      assert.deepEqual([...new Set(res.body.errors.map((e: { path: string }) => e.path))], Object.keys(query), JSON.stringify(res.body));
    }
  });
});
