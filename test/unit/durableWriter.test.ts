import assert from 'node:assert/strict';
import { DurableCatalogWriter } from '../../src/catalog/durableWriter.js';
import { InvalidListingError } from '../../src/catalog/validation.js';
import { decodeOperation } from '../../src/store/catalogOperations.js';
import { httpInput, mcpInput } from '../support/listings.js';
import { manualClock } from './fakes/clock.js';
import { fakeWriteStream } from './fakes/writeStream.js';

function world() {
  const clock = manualClock();
  const fake = fakeWriteStream();
  return { clock, fake, writer: new DurableCatalogWriter(fake.stream, clock.now) };
}
const operations = (entries: Array<{ payload: string }>) => entries.map((e) => decodeOperation(e.payload));

describe('unit: the durable catalog writer', () => {
  it('an upsert is in the stream when it resolves, with the document as it will be stored', async () => {
    const { writer, fake, clock } = world();
    const result = await writer.upsert(httpInput({ resource: 'https://API.weather.example/forecast?x=1' }), { source: 'publish', owner: 'tok_a' });
    assert.equal(result.created, true);
    assert.equal(fake.entries.length, 1);
    const [operation] = operations(fake.entries);
    assert.equal(operation?.op, 'upsert');
    assert.ok(operation?.op === 'upsert');
    assert.deepEqual(operation.doc, result.document);
    assert.equal(operation.doc.resource, 'https://api.weather.example/forecast');
    assert.equal(operation.doc.updatedAt, new Date(clock.now()).toISOString());
    assert.equal(operation.replaceSignals, false);
    assert.equal(fake.entries[0]?.listingId, result.id, 'entries of one listing are ordered by it');
  });

  it('created only when the id was not live: again after a removal', async () => {
    const { writer } = world();
    const { id } = await writer.upsert(httpInput(), { source: 'publish' });
    assert.equal((await writer.upsert(httpInput(), { source: 'publish' })).created, false);
    await writer.remove(id, 'unpublished');
    assert.equal((await writer.upsert(httpInput(), { source: 'publish' })).created, true);
  });

  it('an invalid listing is refused with every field and nothing is appended', async () => {
    const { writer, fake } = world();
    await assert.rejects(writer.upsert({ type: 'mcp' } as never, { source: 'publish' }), (err: unknown) => err instanceof InvalidListingError && err.errors.length >= 4);
    assert.equal(fake.entries.length, 0);
  });

  it('bulk: invalid entries reported by index, the valid ones appended, imports replacing signals', async () => {
    const { writer, fake } = world();
    const result = await writer.upsertMany([httpInput(), { type: 'http' }, mcpInput({ signals: { settleCount7d: 4 } }), 'junk'], { source: 'import' });
    assert.deepEqual(result.rejected.map((r) => r.index), [1, 3]);
    assert.deepEqual(result.accepted.map((a) => [a.index, a.created]), [[0, true], [2, true]]);
    assert.deepEqual(operations(fake.entries).map((o) => o?.op === 'upsert' && o.replaceSignals), [false, true]);
  });

  it('a Redis failure is the caller\'s error: nothing is acknowledged', async () => {
    const { writer, fake } = world();
    fake.down = true;
    await assert.rejects(writer.upsert(httpInput(), { source: 'publish' }), /ECONNREFUSED/);
  });

  it('signals: only the block\'s own members reach the stream', async () => {
    const { writer, fake } = world();
    await writer.updateSignals([{ id: 'lst_a', signals: { settleCount7d: 2, rejectionRate7d: 0, lastSettled: '2026-11-26T00:00:00.000Z', extra: 'x', health: null } as never }]);
    const [operation] = operations(fake.entries);
    assert.deepEqual(operation, { op: 'signals', id: 'lst_a', signals: { settleCount7d: 2, rejectionRate7d: 0, lastSettled: '2026-11-26T00:00:00.000Z' } });
  });

  it('touch and remove are dated by the clock; a touch never changes whether a listing is live', async () => {
    const { writer, fake, clock } = world();
    await writer.touch('lst_a');
    await writer.remove('lst_b', 'stale');
    const at = new Date(clock.now()).toISOString();
    assert.deepEqual(operations(fake.entries), [{ op: 'touch', id: 'lst_a', seenAt: at }, { op: 'remove', id: 'lst_b', reason: 'stale', at }]);
    assert.equal(fake.entries[0]?.live, undefined);
  });
});
