import assert from 'node:assert/strict';
import { buildListingDocument } from '../../src/catalog/document.js';
import { entryAfter, ListingHistory } from '../../src/changes/history.js';
import type { AppliedWrite } from '../../src/store/catalogOperations.js';
import { httpInput, mcpInput } from '../support/listings.js';
import { fakeHistoryLog } from './fakes/historyLog.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute));
let entry = 0;
const nextEntry = () => `1700000000000-${(entry += 1)}`;
const upsert = (input: Parameters<typeof buildListingDocument>[0], minute: number): AppliedWrite => {
  const doc = buildListingDocument(input, { source: 'publish' }, at(minute));
  return { entryId: nextEntry(), operation: { op: 'upsert', id: doc.id, doc, replaceSignals: false } };
};
const remove = (id: string, minute: number): AppliedWrite => ({ entryId: nextEntry(), operation: { op: 'remove', id, reason: 'unpublished', at: at(minute).toISOString() } });
const id = buildListingDocument(httpInput(), { source: 'publish' }, at(0)).id;

describe('unit: listing history', () => {
  it('first seen with its price; writing the same listing again adds nothing', async () => {
    const { log } = fakeHistoryLog();
    const history = new ListingHistory(log);
    await history.record([upsert(httpInput(), 0)]);
    await history.record([upsert(httpInput(), 5)]);
    assert.deepEqual(await history.read(id, 50), [
      { type: 'first_seen', at: at(0).toISOString(), price: { scheme: 'exact', network: 'eip155:84532', asset: httpInput().payment.asset, amount: '10000' } },
    ]);
  });

  it('price, schema and description changes, newest first, with the write\'s date', async () => {
    const history = new ListingHistory(fakeHistoryLog().log);
    await history.record([upsert(httpInput(), 0)]);
    await history.record([upsert(httpInput({ payment: { ...httpInput().payment, amount: '20000' } }), 1)]);
    await history.record([upsert(httpInput({ payment: { ...httpInput().payment, amount: '20000' }, describe: { ...httpInput().describe, title: 'New title', inputs: { city: 'string' } } }), 2)]);
    const events = await history.read(id, 50);
    assert.equal(events.length, 4);
    assert.deepEqual(new Set(events.slice(0, 2).map((e) => e.type)), new Set(['schema_changed', 'description_changed']));
    assert.deepEqual(events[2], { type: 'price_changed', at: at(1).toISOString(), from: { scheme: 'exact', network: 'eip155:84532', asset: httpInput().payment.asset, amount: '10000' }, to: { scheme: 'exact', network: 'eip155:84532', asset: httpInput().payment.asset, amount: '20000' } });
    assert.equal(events[3]?.type, 'first_seen');
  });

  it('removal, once, and relisting; a removal of an unknown listing records nothing', async () => {
    const fake = fakeHistoryLog();
    const history = new ListingHistory(fake.log);
    await history.record([remove('lst_unknown', 0)]);
    assert.equal(fake.commits, 0, 'nothing to record: nothing committed');
    assert.deepEqual(await history.read('lst_unknown', 50), []);
    await history.record([upsert(httpInput(), 1), remove(id, 2), remove(id, 3)]);
    await history.record([upsert(httpInput(), 4)]);
    assert.deepEqual((await history.read(id, 50)).map((e) => e.type), ['relisted', 'removed', 'first_seen']);
  });

  it('a write replayed after a crash (an entry id already recorded) is skipped', async () => {
    const history = new ListingHistory(fakeHistoryLog().log);
    const first = upsert(httpInput(), 0);
    const dearer = upsert(httpInput({ payment: { ...httpInput().payment, amount: '1' } }), 1);
    await history.record([first, dearer]);
    await history.record([dearer]);
    assert.equal((await history.read(id, 50)).filter((e) => e.type === 'price_changed').length, 1);
  });

  it('touches and signal updates are not history; MCP schema changes are', async () => {
    const fake = fakeHistoryLog();
    const history = new ListingHistory(fake.log);
    await history.record([{ entryId: nextEntry(), operation: { op: 'touch', id, seenAt: at(0).toISOString() } }]);
    assert.equal(fake.commits, 0, 'nothing relevant: the log is not even asked');
    const tool = upsert(mcpInput(), 0);
    await history.record([tool, upsert(mcpInput({ inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }), 1)]);
    assert.deepEqual((await history.read(tool.operation.id, 50)).map((e) => e.type), ['schema_changed', 'first_seen']);
  });

  it('stream entry ids compare numerically, not as text', () => {
    assert.equal(entryAfter('1700000000000-10', '1700000000000-9'), true);
    assert.equal(entryAfter('999-0', '1000-0'), false);
    assert.equal(entryAfter('1000-0', '1000-0'), false);
  });
});
