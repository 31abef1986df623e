import assert from 'node:assert/strict';
import { exportedListing, importListings, parseListingFile } from '../../src/catalog/transfer.js';
import { httpInput, mcpInput } from '../support/listings.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';

describe('unit: import and export files', () => {
  it('reads a JSON array or JSON lines (blank lines skipped, a byte-order mark tolerated)', () => {
    assert.deepEqual(parseListingFile('\uFEFF[{"a":1},{"b":2}]'), [{ index: 0, value: { a: 1 } }, { index: 1, value: { b: 2 } }]);
    assert.deepEqual(parseListingFile('{"a":1}\r\n\n{"b":2}\n'), [{ index: 0, value: { a: 1 } }, { index: 1, value: { b: 2 } }]);
    assert.deepEqual(parseListingFile('   '), []);
  });

  it('a broken line is one rejected entry naming its line; the others still import', () => {
    const entries = parseListingFile('{"a":1}\n\n{broken\n{"c":3}');
    assert.equal(entries.length, 3);
    assert.match('error' in entries[1]! ? entries[1].error.message : '', /^line 3 is not valid JSON/);
    const [broken] = parseListingFile('[1,');
    assert.ok(broken && 'error' in broken, 'a broken array is one error for the whole file');
    assert.equal(broken.error.path, '(file)');
    assert.match(broken.error.message, /^not valid JSON/);
  });

  it('imports the valid entries and reports the others by their index in the file, across chunks', async () => {
    const writer = fakeCatalogWriter();
    const file = [httpInput(), { type: 'http' }, mcpInput(), 'not a listing', httpInput({ method: 'POST' })].map((value) => JSON.stringify(value)).join('\n');
    const result = await importListings(writer, [...parseListingFile(file), { index: 5, error: { path: '(root)', message: 'bad line' } }], { source: 'import' }, 2);
    assert.equal(result.total, 6);
    assert.deepEqual(result.accepted.map((a) => a.index), [0, 2, 4]);
    assert.deepEqual(result.rejected.map((r) => r.index), [1, 3, 5]);
    assert.equal(writer.documents.size, 3);
  });

  it('an exported file re-imports onto the same ids (a non-GET method travels with the listing)', async () => {
    const writer = fakeCatalogWriter();
    await importListings(writer, parseListingFile(JSON.stringify([httpInput({ method: 'POST' }), mcpInput()])), { source: 'import' });
    const exported = [...writer.documents.values()].map(exportedListing);
    assert.equal(exported.find((l) => l.type === 'http')?.method, 'POST');
    const again = fakeCatalogWriter();
    await importListings(again, parseListingFile(exported.map((l) => JSON.stringify(l)).join('\n')), { source: 'import' });
    assert.deepEqual([...again.documents.keys()].sort(), [...writer.documents.keys()].sort());
    assert.equal('method' in exportedListing(writer.documents.get([...writer.documents.keys()].find((id) => writer.documents.get(id)?.type === 'mcp')!)!), false);
  });
});
