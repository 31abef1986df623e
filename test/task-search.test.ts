/**
 * Issue 45: task queries read as tasks, and learning from paid outcomes. Real Elasticsearch,
 * Redis, embedding model and payments settled on the dev chain: a task of three needs gets a
 * listing for each need in its first five (explain names the need), a keyword query ranks as it
 * did without the task stage, settlements by five distinct funded payers after their searches
 * lift the paid listing for a paraphrase, while fifty by one payer or payments to oneself lift
 * nothing, and imported outcomes carry their provenance.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { LocalAccount } from 'viem';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpListing, seed } from './support/discoveryFixtures.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';
import { openOutcomeImport } from '../src/cli/outcomeImport.js';
import { outcomeIndexName } from '../src/store/elasticsearch/elasticsearchStores.js';
import { fundBuyer } from './support/chainFunding.js';

interface Result {
  id: string;
  resource: string;
  debug?: { need?: { index: number; text: string }; outcomes?: { lift: number; payers: number } };
}

describe('task queries and paid outcomes (issue 45)', function () {
  this.timeout(120_000);
  let h: Harness;
  const id: Record<string, string> = {};
  const sellers = { contracts: newWallet().address, quick: newWallet().address, self: newWallet() };
  const url = (path: string) => `https://svc.example.org/${path}`;
  const search = async (q: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}): Promise<Result[]> =>
    (await request(h.app).get('/discovery/search').set(headers).query({ q, explain: '1', ...extra }).expect(200)).body.results;
  const tunable = async (key: string, value: string) => {
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), key, value);
    await h.container.search.ranking.refresh();
  };

  before(async () => {
    h = await startHarness({ EMBEDDING_IDLE_MS: '100' });
    const specs = {
      forecast: httpListing({ path: 'forecast', title: '7-day weather forecast', description: 'Daily and hourly forecast for a city: rain probability, temperature, wind.', tags: ['weather', 'forecast'] }),
      hotels: httpListing({ path: 'hotels', title: 'Hotel search', description: 'Find hotel rooms by city and dates, with prices and guest ratings.', tags: ['hotels', 'travel'] }),
      fx: httpListing({ path: 'fx', title: 'Foreign exchange rates', description: 'Convert an amount between currencies at the latest rate (EUR, USD, GBP and 160 more).', tags: ['currency', 'fx'] }),
      ocr: httpListing({ path: 'ocr', title: 'Document OCR', description: 'Extracts the text of scanned pages and photos.', tags: ['ocr'] }),
      prices: httpListing({ path: 'prices', title: 'Historical daily prices', description: 'Daily closing prices of stocks and ETFs.', tags: ['stocks'] }),
      translate: httpListing({ path: 'translate', title: 'Document translation', description: 'Translates documents between 40 languages, keeping their layout.', tags: ['translation'] }),
      contracts: httpListing({ path: 'contracts', title: 'Lingua desk', description: 'Multilingual conversion of business paperwork.', tags: ['paperwork'], payTo: sellers.contracts }),
      quick: httpListing({ path: 'quick', title: 'Quick text converter', description: 'Turns short texts into other languages.', tags: ['text'], payTo: sellers.quick }),
      own: httpListing({ path: 'own', title: 'Paperwork in other tongues', description: 'Business paperwork rendered multilingual.', tags: ['legal'], payTo: sellers.self.address }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h?.close());

  it('a task of three needs returns a listing for each need in the first five, and explain names the need it answers', async () => {
    const results = await search('Heading to Lisbon next week: will it rain on Tuesday, find me a hotel near the old town, and how many dollars do I get for 200 euros?');
    const top5 = results.slice(0, 5).map((r) => r.id);
    for (const need of [id.forecast!, id.hotels!, id.fx!]) assert.ok(top5.includes(need), `${need} not in the first five: ${results.slice(0, 5).map((r) => r.resource).join(', ')}`);
    const needs = new Set(results.slice(0, 5).flatMap((r) => (r.debug?.need ? [r.debug.need.index] : [])));
    assert.equal(needs.size, 3);
    assert.match(results.find((r) => r.id === id.hotels)!.debug!.need!.text, /hotel/);
    // Paging on: the pages together are the one page of every match, each listing once.
    const q = 'Heading to Lisbon next week: will it rain on Tuesday, find me a hotel near the old town, and how many dollars do I get for 200 euros?';
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await request(h.app).get('/discovery/search').query({ q, limit: '1', ...(cursor ? { cursor } : {}) }).expect(200);
      seen.push(...page.body.results.map((r: Result) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor && seen.length < 50);
    assert.deepEqual([...seen].sort(), results.map((r) => r.id).sort());
  });

  it('a short keyword query ranks as it did without the task stage', async () => {
    const shipped = await search('rain forecast');
    await tunable('tasks.candidates', '0');
    await tunable('outcomes.weight', '0');
    const plain = await search('rain forecast');
    await tunable('tasks.candidates', '5');
    await tunable('outcomes.weight', '60');
    assert.deepEqual(shipped.map((r) => r.id), plain.map((r) => r.id));
    assert.equal(shipped[0]!.id, id.forecast);
    assert.ok(shipped.every((r) => r.debug?.need === undefined && r.debug?.outcomes === undefined));
  });

  async function funded(): Promise<LocalAccount> {
    const wallet = newWallet();
    await fundBuyer(wallet.address, 10_000_000n);
    return wallet;
  }

  /** The payer searches naming itself, then pays the listing at `path` (to `payTo`). */
  async function searchAndPay(payer: LocalAccount, q: string, path: string, payTo: string): Promise<boolean> {
    await search(q, { 'X-Payer': payer.address });
    const body = await exactRequest(payer, requirements(payTo), {}, { url: url(path), description: '', mimeType: 'application/json' });
    return (await request(h.app).post('/settle').send(body).expect(200)).body.success === true;
  }

  const refreshLinks = () => h.elasticsearch.indices.refresh({ index: outcomeIndexName(h.config.listingsAlias), ignore_unavailable: true });

  it('paid outcomes of 5 distinct funded payers lift the paid listing for a paraphrase; 50 by one payer, or payments to oneself, lift nothing', async () => {
    const paraphrase = 'need my scanned supplier agreement translated to German';
    const before = await search(paraphrase);
    assert.ok(before.every((r) => r.debug?.outcomes === undefined));
    const rankBefore = before.findIndex((r) => r.id === id.contracts);

    for (let i = 0; i < 5; i++) assert.equal(await searchAndPay(await funded(), 'translate our supplier contract into German', 'contracts', sellers.contracts), true);
    const one = await funded();
    for (let i = 0; i < 50; i++) assert.equal(await searchAndPay(one, 'translate our supplier contract into German', 'quick', sellers.quick), true);
    // Paying oneself moves nothing: the facilitator refuses it, so it links nothing either.
    for (let i = 0; i < 5; i++) assert.equal(await searchAndPay(sellers.self, 'translate our supplier contract into German', 'own', sellers.self.address), false);

    const after = await waitFor(async () => {
      await refreshLinks();
      const results = await search(paraphrase);
      return results.find((r) => r.id === id.contracts)?.debug?.outcomes ? results : undefined;
    }, 20_000);
    const lifted = after.find((r) => r.id === id.contracts)!;
    assert.equal(lifted.debug!.outcomes!.payers, 5);
    assert.ok(lifted.debug!.outcomes!.lift > 0 && lifted.debug!.outcomes!.lift <= 60);
    const rankAfter = after.findIndex((r) => r.id === id.contracts);
    assert.ok(rankBefore === -1 || rankBefore > 0, `the paid listing already ranked first (${rankBefore}): the test would show no lift`);
    assert.equal(rankAfter, 0);
    for (const none of [id.quick, id.own]) assert.equal(after.find((r) => r.id === none)?.debug?.outcomes, undefined);
  });

  it('imported outcomes carry their provenance; a self-payment or an unknown resource links nothing', async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const lines = [
      { q: 'convert my euros for the trip', resource: url('fx'), payer: newWallet().address, at },
      { q: 'convert my euros for the trip', resource: url('own'), payer: sellers.self.address, at },
      { q: 'convert my euros for the trip', resource: url('nowhere'), payer: newWallet().address, at },
    ];
    const result = await openOutcomeImport(h).run(lines.map((l) => JSON.stringify(l)).join('\n'), 'past-outcomes.jsonl');
    assert.equal(result.linked, 1);
    assert.deepEqual(result.skipped, [{ line: 2, reason: 'self_payment' }]);
    assert.deepEqual(result.rejected.map((r) => r.line), [3]);
    const stored = (await h.container.search.outcomes.links.list()).filter((l) => l.source === 'import');
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.listingId, id.fx);
    assert.equal(stored[0]!.provenance!.file, 'past-outcomes.jsonl');
    assert.equal(stored[0]!.provenance!.line, 1);
    assert.ok(Date.parse(stored[0]!.provenance!.importedAt) > Date.parse(at));
    const traffic = (await h.container.search.outcomes.links.list()).filter((l) => l.source === 'traffic');
    assert.ok(traffic.length >= 5 && traffic.every((l) => l.provenance === undefined));
  });

  it('X-Payer must be an address, and payer is no query parameter of the HTTP reads', async () => {
    const bad = await request(h.app).get('/discovery/search').set('X-Payer', 'someone').query({ q: 'forecast' }).expect(400);
    assert.equal(bad.body.code, 'invalid_filter_value');
    const asQuery = await request(h.app).get('/discovery/search').query({ q: 'forecast', payer: newWallet().address }).expect(400);
    assert.equal(asQuery.body.code, 'unknown_filter');
  });
});
