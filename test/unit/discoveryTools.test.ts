import assert from 'node:assert/strict';
import { InvalidInput, NotFound } from '../../src/core/errors.js';
import { discoveryTools, type DiscoveryTool } from '../../src/mcp/discoveryTools.js';
import type { CatalogSearch } from '../../src/search/catalogSearch.js';
import type { ReadRequest } from '../../src/search/readRequest.js';

/** The tools over a search that records the reads it is asked for (the real one is CatalogSearch). */
function tools() {
  const reads: ReadRequest[] = [];
  const search = { read: async (request: ReadRequest) => (reads.push(request), { results: [] }) } as unknown as CatalogSearch;
  const listings = { findListing: async () => undefined };
  const byName = Object.fromEntries(discoveryTools({ search, listings }).map((tool) => [tool.name, tool])) as Record<string, DiscoveryTool>;
  return { byName, reads };
}
async function refusal(run: Promise<unknown>): Promise<{ code: string; paths: string[] }> {
  try {
    await run;
  } catch (err) {
    if (err instanceof InvalidInput) return { code: err.code, paths: err.fieldErrors.map((e) => e.path) };
    throw err;
  }
  return assert.fail('expected InvalidInput');
}

describe('unit: the MCP discovery tools\' arguments', () => {
  it('become the same read a client\'s query string would: numbers and booleans as their query forms', async () => {
    const { byName, reads } = tools();
    await byName.search_resources!.run({ q: 'weather', maxPrice: 5000, minUptime: 0.9, explain: true, limit: 5, network: 'base-sepolia' });
    assert.equal(reads[0]?.q, 'weather');
    assert.equal(reads[0]?.filters.maxPrice, '5000');
    assert.equal(reads[0]?.filters.minUptime, 0.9);
    assert.equal(reads[0]?.filters.network, 'eip155:84532');
    assert.equal(reads[0]?.explain, true);
    assert.equal(reads[0]?.limit, 5);
  });

  it('arguments the schema refuses are invalid_arguments, every one named; nothing is searched', async () => {
    const { byName, reads } = tools();
    const refused = await refusal(byName.search_resources!.run({ q: '', type: 'grpc', minUptime: 2, unknown: 1 }));
    assert.equal(refused.code, 'invalid_arguments');
    for (const path of ['q', 'type', 'minUptime', 'unknown']) assert.ok(refused.paths.includes(path), `${path} in ${refused.paths}`);
    assert.deepEqual(reads, []);
  });

  it('a search without q is refused before anything else', async () => {
    const { byName } = tools();
    assert.deepEqual(await refusal(byName.search_resources!.run({ type: 'mcp' })), { code: 'invalid_arguments', paths: ['q'] });
  });

  it('values the schema admits but the read rules refuse get the read\'s own codes', async () => {
    const { byName } = tools();
    assert.equal((await refusal(byName.list_resources!.run({ network: 'moon' }))).code, 'invalid_filter_value');
  });

  it('get_resource: a listing id or invalid_arguments; an unknown id is not found', async () => {
    const { byName } = tools();
    assert.deepEqual(await refusal(byName.get_resource!.run({ id: '../etc/passwd' })), { code: 'invalid_arguments', paths: ['id'] });
    await assert.rejects(byName.get_resource!.run({ id: 'lst_000000000000000000000000' }), NotFound);
  });
});
