import assert from 'node:assert/strict';
import { buildListingDocument } from '../src/catalog/document.js';
import type { CatalogOperation } from '../src/store/catalogOperations.js';
import { dropDeploymentIndices } from '../src/store/elasticsearch/listingIndex.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { ensureListingIndex } from '../src/store/elasticsearch/listingIndex.js';
import { ListingStore } from '../src/store/elasticsearch/listingStore.js';
import { testConfig } from './support/harness.js';
import { httpInput } from './support/listings.js';

/**
 * The store cuts a batch into `_bulk` requests of about 8 MiB. The ingest consumer tells it each
 * write's size (the stream entry's length) so documents are not serialized twice just to be
 * measured; writes without that size are still measured by serializing them.
 */
describe('listing store: _bulk request size', () => {
  const config = testConfig();
  let client: ElasticsearchClient;
  let bulkRequests = 0;
  let store: ListingStore;

  before(async () => {
    client = createElasticsearchClient(config.elasticsearchUrl);
    await ensureListingIndex(client, config.listingsAlias, config.listingsIndex);
    const bulk = client.bulk.bind(client);
    client.bulk = ((...args: Parameters<typeof bulk>) => {
      bulkRequests++;
      return bulk(...args);
    }) as typeof client.bulk;
    store = new ListingStore(client, config.listingsAlias);
  });
  after(async () => {
    await dropDeploymentIndices(client, config.listingsIndex, config.listingsAlias);
    await client.close();
  });

  const upserts = (prefix: string, count: number, encodedLength?: number): CatalogOperation[] =>
    Array.from({ length: count }, (_, i) => {
      const doc = buildListingDocument(httpInput({ resource: `https://${prefix}.example/item/${i}` }), { source: 'import' }, new Date());
      return { op: 'upsert', id: doc.id, doc, replaceSignals: false, probablyNew: true, ...(encodedLength === undefined ? {} : { encodedLength }) };
    });

  it('sizes the requests by the entries the consumer read: 30 writes of 1 MiB go in several requests, all applied', async () => {
    bulkRequests = 0;
    const operations = upserts('large', 30, 1024 * 1024);
    const outcomes = await store.apply(operations);
    assert.deepEqual(new Set(outcomes.map((o) => o.status)), new Set(['applied']));
    // 8 MiB per request: 8 writes of 1 MiB each, so 4 requests for 30.
    assert.equal(bulkRequests, 4);
    for (const operation of [operations[0]!, operations[29]!]) assert.ok(await store.get(operation.id), `${operation.id} stored`);
  });

  it('measures writes that carry no size by serializing them: 30 small writes go in one request', async () => {
    bulkRequests = 0;
    const outcomes = await store.apply(upserts('small', 30));
    assert.equal(outcomes.filter((o) => o.status === 'applied').length, 30);
    assert.equal(bulkRequests, 1);
  });
});
