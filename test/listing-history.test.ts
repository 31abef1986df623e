import assert from 'node:assert/strict';
import request from 'supertest';
import type { AppliedWrite } from '../src/store/catalogOperations.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { ListingHistory } from '../src/changes/history.js';
import { HistoryLog } from '../src/store/redis/historyLog.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';
import { exactRequest, newWallet, requirements } from './support/payments.js';
import { assertMined, fundBuyer } from './support/chainFunding.js';

describe('listing history (GET /discovery/resources/{id}/history)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ CATALOG_BATCH_SIZE: '4', SIGNALS_FLUSH_MS: '200' });
  });
  after(async () => h.close());

  const writer = () => h.container.catalog.writer;
  const drained = () => waitFor(async () => (await h.container.catalog.queue.stats()).depth === 0, 15_000, 50);
  const history = async (id: string, query: Record<string, string> = {}) =>
    (await request(h.app).get(`/discovery/resources/${id}/history`).query(query).expect(200)).body as { id: string; events: Array<Record<string, unknown>> };

  it('lists first seen, price, schema and description changes, removal and relisting, newest first', async () => {
    const base = httpInput({ resource: 'https://history.example/v1/quote' });
    const firstSeen = new Date(Date.now() - 86_400_000);
    const { id } = await writer().upsert(base, { source: 'import', seenAt: firstSeen });
    await writer().upsert(base, { source: 'import' }); // same content: no event
    const priced = { ...base, payment: { ...base.payment, amount: '25000' } };
    await writer().upsert(priced, { source: 'import' });
    const schema = { ...priced, describe: { ...priced.describe, inputs: { lat: 'number', lng: 'number', days: 'integer' } } };
    await writer().upsert(schema, { source: 'import' });
    const described = { ...schema, describe: { ...schema.describe, description: 'Hourly and daily forecast' } };
    await writer().upsert(described, { source: 'import' });
    await writer().touch(id); // seen again: no event
    await writer().remove(id, 'probe_failed');
    await writer().upsert(described, { source: 'import' });
    await drained();

    const { events } = await history(id);
    assert.deepEqual(events.map((e) => e.type), ['relisted', 'removed', 'description_changed', 'schema_changed', 'price_changed', 'first_seen']);
    const price = { scheme: 'exact', network: 'eip155:84532', asset: base.payment.asset };
    assert.deepEqual(events[4], { type: 'price_changed', at: events[4]!.at, from: { ...price, amount: '10000' }, to: { ...price, amount: '25000' } });
    assert.equal(events[1]!.reason, 'probe_failed');
    assert.deepEqual(events[5], { type: 'first_seen', at: firstSeen.toISOString(), price: { ...price, amount: '10000' } });
    const dates = events.map((e) => Date.parse(e.at as string));
    assert.deepEqual([...dates].sort((a, b) => b - a), dates, 'dates descend');

    assert.deepEqual((await history(id, { limit: '2' })).events.map((e) => e.type), ['relisted', 'removed']);
  });

  it('the first settlement on chain is an event with its transaction hash; later ones add none', async () => {
    const payTo = newWallet().address;
    const input = httpInput({ resource: 'https://history.example/v1/paid', payment: { ...httpInput().payment, payTo, amount: '3000' } });
    const { id } = await writer().upsert(input, { source: 'import' });
    await drained();
    const settle = async () => {
      const buyer = newWallet();
      await fundBuyer(buyer.address, 10_000n);
      const body = await exactRequest(buyer, requirements(payTo, { amount: '3000' }), {}, { url: input.resource, description: 'paid', mimeType: 'application/json' });
      const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
      assert.equal(settled.success, true, JSON.stringify(settled));
      return settled.transaction as string;
    };
    const first = await settle();
    const events = await waitFor(async () => {
      const found = (await history(id)).events;
      return found.some((e) => e.type === 'first_settled') ? found : undefined;
    }, 15_000, 100);
    assert.deepEqual(events.map((e) => e.type), ['first_settled', 'first_seen']);
    assert.equal(events[0]!.transaction, first);
    await assertMined(first);
    await settle();
    await waitFor(async () => ((await request(h.app).get(`/discovery/resources/${id}`).expect(200)).body.signals.settleCount7d === 2 ? true : undefined), 15_000, 100);
    await drained();
    assert.deepEqual((await history(id)).events.map((e) => e.type), ['first_settled', 'first_seen']);
  });

  it('MCP tools: a changed input schema and a changed description are separate events', async () => {
    const tool = mcpInput({ resource: 'mcp://history-tools.example/summarize', name: 'summarize' });
    const { id } = await writer().upsert(tool, { source: 'publish' });
    const narrower = { ...tool, inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
    await writer().upsert(narrower, { source: 'publish' });
    await writer().upsert({ ...narrower, description: 'Summarize a text in a few sentences' }, { source: 'publish' });
    await drained();
    assert.deepEqual((await history(id)).events.map((e) => e.type), ['description_changed', 'schema_changed', 'first_seen']);
  });

  it('a write replayed after a crash adds nothing; the history keeps the newest events only', async () => {
    const log = new HistoryLog(h.redis, `${h.config.redisPrefix}unit:`, 3);
    const recorder = new ListingHistory(log);
    const doc = (amount: string) => buildListingDocument({ ...httpInput(), payment: { ...httpInput().payment, amount } }, { source: 'import' }, new Date());
    const writes: AppliedWrite[] = ['1', '2', '3', '4', '5'].map((amount, i) => ({ entryId: `100-${i}`, operation: { op: 'upsert', id: 'lst_x', doc: doc(amount), replaceSignals: false } }));
    await recorder.record(writes.slice(0, 3));
    await recorder.record(writes.slice(1)); // two of these were recorded already
    const events = await recorder.read('lst_x', 50);
    assert.deepEqual(events.map((e) => (e.type === 'price_changed' ? `${e.from.amount}->${e.to.amount}` : e.type)), ['4->5', '3->4', '2->3']);
  });

  it('a listing indexed before history existed shows when it was first seen', async () => {
    const { id } = await writer().upsert(httpInput({ resource: 'https://history.example/old' }), { source: 'import' });
    await drained();
    await h.redis.del(redisKeys(h.config.redisPrefix).historyEvents(id));
    const { events } = await history(id);
    assert.deepEqual(events.map((e) => e.type), ['first_seen']);
  });

  it('unknown listings are 404; bad parameters are 400 problem+json', async () => {
    for (const id of ['lst_000000000000000000000000', 'nope', '..%2F..']) {
      const res = await request(h.app).get(`/discovery/resources/${id}/history`).expect(404);
      assert.equal(res.body.code, 'not_found');
    }
    const { id } = await writer().upsert(httpInput({ resource: 'https://history.example/params' }), { source: 'import' });
    await drained();
    const bad = async (query: Record<string, string | string[]>, code: string) => {
      const res = await request(h.app).get(`/discovery/resources/${id}/history`).query(query).expect(400).expect('Content-Type', /problem\+json/);
      assert.equal(res.body.code, code);
    };
    await bad({ since: 'x' }, 'unknown_filter');
    for (const limit of ['0', '51', 'x', '']) await bad({ limit }, 'invalid_filter_value');
    await bad({ limit: ['1', '2'] }, 'invalid_filter_value');
  });
});
