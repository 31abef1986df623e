import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { ChangeTokenCodec } from '../../src/changes/changeToken.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, HISTORY_MAX_LIMIT, parseFeedRequest, parseHistoryRequest } from '../../src/changes/feedRequest.js';
import { CursorCodec } from '../../src/search/cursor.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';

const secret = async () => Buffer.from('a-secret-of-sixteen-chars');
const code = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidInput) return `${err.code}:${err.fieldErrors.map((e) => e.path).join(',')}`;
    throw err;
  }
  return 'accepted';
};

describe('unit: change feed and history requests', () => {
  it('feed: since and limit (1-1000, default 100); history: limit 1-50, all by default', () => {
    assert.deepEqual(parseFeedRequest({}), { limit: FEED_DEFAULT_LIMIT });
    assert.deepEqual(parseFeedRequest({ since: 'tok', limit: String(FEED_MAX_LIMIT) }), { since: 'tok', limit: 1000 });
    assert.deepEqual(parseHistoryRequest({}), { limit: HISTORY_MAX_LIMIT });
    assert.deepEqual(parseHistoryRequest({ limit: '3' }), { limit: 3 });
  });

  it('refuses unknown parameters, bad limits, repeated and empty values with the catalog reads\' codes', () => {
    assert.equal(code(() => parseFeedRequest({ cursor: 'x' })), 'unknown_filter:cursor');
    assert.equal(code(() => parseFeedRequest({ limit: '1001' })), 'invalid_filter_value:limit');
    assert.equal(code(() => parseFeedRequest({ limit: ['1', '2'], since: '' })), 'invalid_filter_value:limit,since');
    assert.equal(code(() => parseFeedRequest({ since: ['a', 'b'] })), 'invalid_filter_value:since');
    assert.equal(code(() => parseHistoryRequest({ limit: '51' })), 'invalid_filter_value:limit');
    assert.equal(code(() => parseHistoryRequest({ since: 'x' })), 'unknown_filter:since');
  });
});

describe('unit: change feed tokens', () => {
  const codec = new ChangeTokenCodec(secret);

  it('round-trips a change-log position of this log', async () => {
    assert.equal(await codec.decode(await codec.encode('1700000000000-5', 'epoch1'), 'epoch1'), '1700000000000-5');
  });

  it('a token from before the log was started again is refused, saying so', async () => {
    const token = await codec.encode('1-0', 'epoch1');
    await assert.rejects(codec.decode(token, 'epoch2'), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_cursor' && /started again/.test(err.detail));
  });

  it('a read cursor never passes for a feed token (same secret, another label), nor a forged position', async () => {
    const cursor = await new CursorCodec(secret).encode(parseReadRequest('resources', {}), { searchAfter: [1, 'lst_a'] });
    await assert.rejects(codec.decode(cursor, 'epoch1'), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_cursor');
    await assert.rejects(codec.decode(await codec.encode('not-a-position', 'epoch1'), 'epoch1'), /another version/);
    await assert.rejects(codec.decode('garbage', 'epoch1'), /malformed/);
  });
});
