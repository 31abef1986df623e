import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { CursorCodec, cursorBinding } from '../../src/search/cursor.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';

describe('unit: page cursors', () => {
  const codec = new CursorCodec(async () => Buffer.from('a-secret-of-sixteen-chars'));
  const request = parseReadRequest('search', { q: 'weather', network: 'eip155:84532' });

  it('round-trips the sort values and the first page\'s clock', async () => {
    const cursor = await codec.encode(request, { searchAfter: [1.5, 'lst_a'], now: 1_700_000_000_000 });
    assert.deepEqual(await codec.decode(request, cursor, 2), { searchAfter: [1.5, 'lst_a'], now: 1_700_000_000_000 });
  });

  it('is bound to query, filters and sort, not to limit or explain', () => {
    assert.equal(cursorBinding(request), cursorBinding(parseReadRequest('search', { q: 'weather', network: 'eip155:84532', limit: '5', explain: '1' })));
    assert.notEqual(cursorBinding(request), cursorBinding(parseReadRequest('search', { q: 'weather' })));
    assert.notEqual(cursorBinding(request), cursorBinding(parseReadRequest('search', { q: 'weather', network: 'eip155:84532', sort: 'price' })));
  });

  it('refuses an altered, replayed, foreign or malformed cursor with invalid_cursor', async () => {
    const cursor = await codec.encode(request, { searchAfter: [1, 'lst_a'] });
    const [body, tag] = cursor.split('.') as [string, string];
    const altered = `${Buffer.from(Buffer.from(body, 'base64url').toString().replace('lst_a', 'lst_b')).toString('base64url')}.${tag}`;
    const other = parseReadRequest('search', { q: 'rain' });
    const foreign = await new CursorCodec(async () => Buffer.from('another-secret-value')).encode(request, { searchAfter: [1, 'lst_a'] });
    for (const [bad, req] of [[altered, request], [cursor, other], [foreign, request], ['nope', request]] as const) {
      await assert.rejects(codec.decode(req, bad, 2), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_cursor');
    }
    await assert.rejects(codec.decode(request, cursor, 3), InvalidInput, 'a cursor of another sort length is from another version');
  });

  it('round-trips a position in the rank window and the start of its tail, with the window size', async () => {
    const inWindow = await codec.encode(request, { rank: { size: 300, position: 40 }, now: 5 });
    assert.deepEqual(await codec.decode(request, inWindow, 2), { rank: { size: 300, position: 40 }, now: 5 });
    const tail = await codec.encode(request, { rank: { size: 300, tail: true }, now: 5 });
    assert.deepEqual(await codec.decode(request, tail, 2), { rank: { size: 300, tail: true }, now: 5 });
    const deeper = await codec.encode(request, { rank: { size: 300, tail: true }, searchAfter: [2.5, 'lst_b'], now: 5 });
    assert.deepEqual(await codec.decode(request, deeper, 2), { rank: { size: 300, tail: true }, searchAfter: [2.5, 'lst_b'], now: 5 });
  });

  it('refuses a window position the service never hands out (signed or not)', async () => {
    for (const rank of [{ size: 10, position: 10 }, { size: 0, position: 0 }, { size: 20_000, position: 1 }, { size: 10, position: -1 }, { size: 10, position: 1.5 }]) {
      const cursor = await codec.encode(request, { rank });
      await assert.rejects(codec.decode(request, cursor, 2), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_cursor', JSON.stringify(rank));
    }
  });
});
