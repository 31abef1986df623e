import assert from 'node:assert/strict';
import { buildListingDocument } from '../../src/catalog/document.js';
import { decodeOperation, encodeOperation, isConflictRetry, supersededOperations, type CatalogOperation } from '../../src/store/catalogOperations.js';
import { httpInput, mcpInput } from '../support/listings.js';

/**
 * The consumer decodes an upsert so that the document's JSON text is kept and sent to `_bulk` as is
 * (store/elasticsearch/listingStore.ts). Whatever the payload, the operation must be the one parsing it whole
 * gives, and the kept text exactly the document's JSON.
 */
describe('catalog operations: stream payload codec', () => {
  const doc = buildListingDocument(httpInput({ resource: 'https://codec.example/ünïcode/"quoted"' }), { source: 'import' }, new Date());
  const mcpDoc = buildListingDocument(mcpInput(), { source: 'publish', owner: 'tok_1' }, new Date());

  it('an upsert decodes to what was encoded, with the document JSON kept verbatim', () => {
    for (const [d, replaceSignals] of [[doc, false], [mcpDoc, true]] as const) {
      const decoded = decodeOperation(encodeOperation({ op: 'upsert', id: d.id, doc: d, replaceSignals }));
      assert.ok(decoded && decoded.op === 'upsert');
      const { encodedDoc, ...operation } = decoded;
      assert.deepEqual(operation, { op: 'upsert', id: d.id, doc: d, replaceSignals });
      assert.equal(encodedDoc, JSON.stringify(d));
    }
  });

  it("never writes the consumer's own members into the payload", () => {
    const payload = encodeOperation({
      op: 'upsert', id: doc.id, doc, replaceSignals: false, probablyNew: true, textHash: 'h', encodedLength: 12, encodedDoc: '{"stale":1}',
    });
    assert.deepEqual(JSON.parse(payload), { op: 'upsert', id: doc.id, doc: JSON.parse(JSON.stringify(doc)), replaceSignals: false });
  });

  it('payloads in another form decode as a whole parse does, without kept text that could differ', () => {
    const docJson = JSON.stringify(doc);
    const cases = [
      // A repeated member: the last one wins in JSON.parse; a slice would have sent both.
      `{"op":"upsert","id":"${doc.id}","doc":{"id":"x"},"replaceSignals":true,"doc":${docJson},"replaceSignals":false}`,
      // Other member order and spacing (an older producer, a hand-requeued entry).
      `{"id":"${doc.id}","op":"upsert","replaceSignals":false,"doc":${docJson}}`,
      `{"op": "upsert", "id": "${doc.id}", "doc": ${docJson}, "replaceSignals": false}`,
      // An id that is not a string, a document that is not an object.
      `{"op":"upsert","id":{"a":1,"doc":2},"doc":${docJson},"replaceSignals":false}`,
      `{"op":"upsert","id":"${doc.id}","doc":[1],"replaceSignals":false}`,
      `{"op":"upsert","id":"${doc.id}","doc":${docJson} ,"replaceSignals":false}`,
    ];
    for (const payload of cases) {
      const whole = JSON.parse(payload) as CatalogOperation;
      const decoded = decodeOperation(payload);
      const expected = typeof whole.id === 'string' ? whole : undefined;
      if (decoded?.op === 'upsert' && decoded.encodedDoc !== undefined) {
        // Kept text is allowed only where it is the document parsing the whole payload gives.
        assert.deepEqual(JSON.parse(decoded.encodedDoc), (whole as { doc: unknown }).doc, payload);
        const { encodedDoc: _kept, ...rest } = decoded;
        assert.deepEqual(rest, expected, payload);
      } else assert.deepEqual(decoded, expected, payload);
    }
  });

  it('unreadable payloads stay unreadable', () => {
    for (const payload of ['', 'nope', '{"op":"upsert","id":"a","doc":{', '{"op":"upsert","id":"a","doc":{}', '{"op":"explode","id":"a"}', 'null']) {
      assert.equal(decodeOperation(payload), undefined, payload);
    }
  });

  it('other operations round-trip unchanged', () => {
    const operations: CatalogOperation[] = [
      { op: 'touch', id: doc.id, seenAt: new Date(0).toISOString() },
      { op: 'remove', id: doc.id, reason: 'operator', at: new Date(0).toISOString() },
      { op: 'signals', id: doc.id, signals: { settleCount7d: 3, rejectionRate7d: 0 } },
    ];
    for (const operation of operations) assert.deepEqual(decodeOperation(encodeOperation(operation)), operation);
  });
});

/**
 * A listing paid for many times a second gets one traffic write per settlement; a batch applies
 * only the last of a row of writes that each contain the one before (store/elasticsearch/listingStore.ts).
 */
describe('catalog operations: writes a later one in the batch supersedes', () => {
  const at = new Date('2026-11-26T12:00:00Z');
  const traffic = (resource: string, extra: Partial<Extract<CatalogOperation, { op: 'upsert' }>> = {}): CatalogOperation => {
    const doc = buildListingDocument(httpInput({ resource }), { source: 'traffic' }, at);
    return { op: 'upsert', id: doc.id, doc, replaceSignals: false, ...extra };
  };
  const hot = traffic('https://hot.example/api');
  const other = traffic('https://other.example/api');
  const declared = (() => {
    const doc = buildListingDocument(httpInput({ resource: 'https://hot.example/api' }), { source: 'publish', owner: 'tok_1' }, at);
    return { op: 'upsert', id: doc.id, doc, replaceSignals: false } as CatalogOperation;
  })();
  const touch = (id: string): CatalogOperation => ({ op: 'touch', id, seenAt: at.toISOString() });
  const signals = (id: string, settled?: { first: string; last: string }): CatalogOperation => ({
    op: 'signals', id, signals: { settleCount7d: 1, rejectionRate7d: 0 } as never, ...(settled ? { settled } : {}),
  });
  const skipped = (ops: CatalogOperation[]) => [...supersededOperations(ops)].sort((a, b) => a - b);

  it('a row of traffic refreshes of one listing keeps only the last; other listings in between do not matter', () => {
    assert.deepEqual(skipped([hot, other, hot, hot, other, hot]), [0, 1, 2, 3]);
  });

  it('touches are superseded by a later touch or traffic refresh, signals by later signals carrying at least as much', () => {
    assert.deepEqual(skipped([touch(hot.id), touch(hot.id), hot]), [0, 1]);
    assert.deepEqual(skipped([signals(hot.id), signals(hot.id)]), [0]);
    const settled = { first: at.toISOString(), last: at.toISOString() };
    assert.deepEqual(skipped([signals(hot.id, settled), signals(hot.id)]), [], 'the later one would not write provenance.settled');
    assert.deepEqual(skipped([signals(hot.id), signals(hot.id, settled)]), [0]);
  });

  it('only the next write of the same listing counts: a signals update or a touch between two refreshes keeps the first', () => {
    assert.deepEqual(skipped([hot, signals(hot.id), hot]), []);
    assert.deepEqual(skipped([hot, touch(hot.id)]), [], 'a touch does not contain a traffic refresh');
  });

  it('never skips a declared write, a removal, evidence, a creating write or an import that replaces signals', () => {
    assert.deepEqual(skipped([declared, declared]), []);
    assert.deepEqual(skipped([hot, declared]), [], 'a declared write does not contain a traffic refresh');
    assert.deepEqual(skipped([declared, hot]), [], 'a traffic refresh does not contain a declared write');
    assert.deepEqual(skipped([{ op: 'remove', id: hot.id, reason: 'unpublished', at: at.toISOString() }, hot]), []);
    assert.deepEqual(skipped([{ op: 'evidence', id: hot.id, provenance: {} }, hot]), []);
    assert.deepEqual(skipped([traffic('https://hot.example/api', { probablyNew: true }), hot]), [], 'the write that creates the listing sets firstSeen');
    assert.deepEqual(skipped([hot, traffic('https://hot.example/api', { replaceSignals: true })]), []);
  });

  it('tells a version conflict (retry at once) from Elasticsearch being unavailable', () => {
    assert.equal(isConflictRetry('version_conflict_engine_exception: [lst_1]: version conflict'), true);
    assert.equal(isConflictRetry('an earlier write to this listing is not applied yet (version_conflict_engine_exception: x)'), true);
    assert.equal(isConflictRetry('Request timed out'), false);
  });
});
