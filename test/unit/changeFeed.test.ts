import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { ChangeFeed, feedRelevant } from '../../src/changes/changeFeed.js';
import { ChangeTokenCodec } from '../../src/changes/changeToken.js';
import { httpInput, mcpInput } from '../support/listings.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';
import { fakeChangeLog } from './fakes/changeLog.js';
import { manualClock } from './fakes/clock.js';

function world() {
  const clock = manualClock();
  const writer = fakeCatalogWriter(clock.now);
  const changes = fakeChangeLog();
  const reader = {
    get: async (id: string) => writer.documents.get(id),
    getMany: async (ids: string[]) => new Map(ids.filter((id) => writer.documents.has(id)).map((id) => [id, writer.documents.get(id)!] as const)),
  };
  const feed = new ChangeFeed(changes.log, reader, new ChangeTokenCodec(async () => Buffer.from('a-secret-of-sixteen-chars')), () => new Date(clock.now()));
  return { clock, writer, changes, feed };
}

describe('unit: the change feed for mirrors', () => {
  it('pages through every listing once, in change order, with a token to continue from', async () => {
    const { writer, changes, feed } = world();
    const a = await writer.upsert(httpInput(), { source: 'publish' });
    const b = await writer.upsert(mcpInput(), { source: 'publish' });
    changes.append([a.id, b.id]);
    const first = await feed.page({ limit: 1 });
    assert.deepEqual(first.changes.map((c) => c.id), [a.id]);
    assert.equal(first.hasMore, true);
    const second = await feed.page({ since: first.nextSince, limit: 1 });
    assert.deepEqual(second.changes.map((c) => c.id), [b.id]);
    assert.equal(second.hasMore, false);
    const third = await feed.page({ since: second.nextSince, limit: 10 });
    assert.deepEqual(third, { changes: [], nextSince: third.nextSince, hasMore: false });
    assert.equal(third.nextSince, second.nextSince, 'an empty page keeps the position');
  });

  it('a listing changed again moves to the end, once; the listing is the response shape', async () => {
    const { writer, changes, feed } = world();
    const a = await writer.upsert(httpInput(), { source: 'publish', owner: 'tok_secret' });
    const b = await writer.upsert(mcpInput(), { source: 'publish' });
    changes.append([a.id, b.id, a.id]);
    const page = await feed.page({ limit: 10 });
    assert.deepEqual(page.changes.map((c) => c.id), [b.id, a.id]);
    const change = page.changes[1]!;
    assert.ok('listing' in change);
    assert.equal('owner' in change.listing, false, 'internal fields never leave');
  });

  it('removals are tombstones with their reason and date; a listing deleted from the index too', async () => {
    const { writer, changes, feed, clock } = world();
    const a = await writer.upsert(httpInput(), { source: 'publish' });
    await writer.remove(a.id, 'unpublished');
    changes.append([a.id, 'lst_000000000000000000000000']);
    const page = await feed.page({ limit: 10 });
    assert.deepEqual(page.changes, [
      { id: a.id, removed: true, removedAt: new Date(clock.now()).toISOString(), reason: 'unpublished' },
      { id: 'lst_000000000000000000000000', removed: true, removedAt: new Date(clock.now()).toISOString(), reason: 'deleted' },
    ]);
  });

  it('a token from before the log started again is refused: the mirror starts over', async () => {
    const { writer, changes, feed } = world();
    changes.append([(await writer.upsert(httpInput(), { source: 'publish' })).id]);
    const { nextSince } = await feed.page({ limit: 10 });
    changes.restart();
    await assert.rejects(feed.page({ since: nextSince, limit: 10 }), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_cursor');
  });

  it('only changes a mirror sees are logged: a touch moves nothing it shows', () => {
    assert.deepEqual(feedRelevant([
      { op: 'touch', id: 'lst_a', seenAt: '' },
      { op: 'remove', id: 'lst_b', reason: 'stale', at: '' },
      { op: 'signals', id: 'lst_c', signals: { settleCount7d: 1, rejectionRate7d: 0 } },
    ]), ['lst_b', 'lst_c']);
  });
});
