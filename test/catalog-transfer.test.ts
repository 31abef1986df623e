import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { buildListingDocument } from '../src/catalog/document.js';
import { exportedListing, importListings, parseListingFile } from '../src/catalog/transfer.js';
import { validateListingInput } from '../src/catalog/validation.js';
import type { ListingInput } from '../src/shapes/listingInput.js';
import { scanLiveListings } from '../src/store/elasticsearch/listingScan.js';
import { shippedRanking } from '../src/search/rankingSettings.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';

const run = promisify(execFile);
const DEMO = readFileSync(new URL('../demo/catalog.json', import.meta.url), 'utf8');

async function drained(h: Harness): Promise<void> {
  await waitFor(async () => (await h.container.catalog.queue.stats()).depth === 0 || undefined, 15_000, 50);
  await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
}

async function exportAll(h: Harness): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of scanLiveListings(h.elasticsearch, h.config.listingsAlias, 10)) out.push(...page.map(exportedListing));
  return out;
}

describe('catalog import and export', () => {
  let a: Harness;
  let b: Harness;
  before(async () => {
    [a, b] = await Promise.all([startHarness(), startHarness()]);
  });
  after(async () => Promise.all([a.close(), b.close()]));

  it('parses JSON arrays and JSON lines, keeping the position of unparseable lines', () => {
    assert.deepEqual(parseListingFile('[{"a":1},{"b":2}]'), [
      { index: 0, value: { a: 1 } },
      { index: 1, value: { b: 2 } },
    ]);
    const lines = parseListingFile('{"a":1}\n\n{oops\n{"c":3}\n');
    assert.equal(lines.length, 3);
    assert.ok('error' in lines[1]! && /line 3/.test(lines[1].error.message));
    assert.deepEqual(lines[2], { index: 2, value: { c: 3 } });
    assert.ok('error' in parseListingFile('{"not":"an array"')[0]!);
    assert.deepEqual(parseListingFile('   '), []);
  });

  it('imports the demo catalog and exports it back in the same shape, ids stable across a round trip', async () => {
    const entries = parseListingFile(DEMO);
    assert.ok(entries.length >= 40);
    const imported = await importListings(a.container.catalog.writer, entries, { source: 'import' });
    assert.deepEqual(imported.rejected, []);
    assert.equal(imported.accepted.length, entries.length);
    await drained(a);

    const exported = await exportAll(a);
    assert.equal(exported.length, entries.length);
    const byId = new Map(exported.map((l) => [(l as { id: string }).id, l as Record<string, unknown>]));
    for (const entry of entries) {
      const input = (entry as { value: ListingInput }).value;
      const id = buildListingDocument(input, { source: 'import' }, new Date()).id;
      const listing = byId.get(id);
      assert.ok(listing, `${input.resource} exported`);
      assert.equal(listing.resource, input.resource);
      assert.deepEqual(listing.payment, input.payment);
      if (input.type === 'http') assert.deepEqual(listing.describe, input.describe);
      else assert.deepEqual(listing.inputSchema, input.inputSchema);
      if (input.signals) assert.equal((listing.signals as { settleCount7d: number }).settleCount7d, input.signals.settleCount7d);
      assert.equal('canonicalKey' in listing || 'firstSeen' in listing || 'removed' in listing, false, 'no internals');
    }

    // The export imports into another catalog and exports identically (signals included).
    const again = await importListings(b.container.catalog.writer, parseListingFile(JSON.stringify(exported)), { source: 'import' });
    assert.deepEqual(again.rejected, []);
    await drained(b);
    assert.deepEqual(await exportAll(b), exported);
  });

  it('export leaves removed listings out and keeps the method of non-GET endpoints', async () => {
    const post = await b.container.catalog.writer.upsert(httpInput({ resource: 'https://transfer.example/submit', method: 'POST' }), { source: 'announce' });
    const gone = await b.container.catalog.writer.upsert(httpInput({ resource: 'https://transfer.example/gone' }), { source: 'announce' });
    await drained(b);
    await b.container.catalog.writer.remove(gone.id, 'operator');
    await drained(b);
    const exported = (await exportAll(b)) as Array<{ id: string; method?: string }>;
    assert.equal(exported.find((l) => l.id === post.id)?.method, 'POST');
    assert.equal(exported.some((l) => l.id === gone.id), false);
  });

  it('imports null signals from other catalogs as never settled, clearing what was stored', async () => {
    const settled = httpInput({ resource: 'https://nulls.example/quokka-census', describe: { title: 'Quokka census', tags: ['quokka'] } });
    const first = await importListings(
      b.container.catalog.writer,
      parseListingFile(JSON.stringify([{ ...settled, signals: { lastSettled: new Date().toISOString(), settleCount7d: 40, rejectionRate7d: 0.1 } }])),
      { source: 'import' },
    );
    assert.deepEqual(first.rejected, []);
    await drained(b);
    // The same listing exported by a catalog that saw no settlement, and two more written the way such catalogs write them.
    const file = [
      JSON.stringify({ ...settled, signals: { lastSettled: null, settleCount7d: null, rejectionRate7d: null } }),
      JSON.stringify({ ...httpInput({ resource: 'https://nulls.example/quokka-sightings', describe: { title: 'Quokka sightings' } }), signals: { lastSettled: null, settleCount7d: 3, rejectionRate7d: 0 } }),
      JSON.stringify({ ...mcpInput({ resource: 'mcp://nulls.example/count_quokkas', name: 'count_quokkas', description: 'Counts every quokka on an island' }), signals: null }),
    ].join('\n');
    const imported = await importListings(b.container.catalog.writer, parseListingFile(file), { source: 'import' });
    assert.deepEqual(imported.rejected, []);
    assert.equal(imported.accepted.length, 3);
    await drained(b);

    const found = (await request(b.app).get('/discovery/search?q=quokka&explain=1').expect(200)).body.results as Array<{
      resource: string;
      signals: Record<string, unknown>;
      debug: { recencyBoost: number };
    }>;
    assert.deepEqual(found.map((l) => l.resource).sort(), ['https://nulls.example/quokka-census', 'https://nulls.example/quokka-sightings', 'mcp://nulls.example/count_quokkas']);
    const byResource = new Map(found.map((l) => [l.resource, l]));
    assert.deepEqual(byResource.get('https://nulls.example/quokka-census')!.signals, { settleCount7d: 0, rejectionRate7d: 0 }, 'stored signals replaced');
    assert.deepEqual(byResource.get('https://nulls.example/quokka-sightings')!.signals, { settleCount7d: 3, rejectionRate7d: 0 });
    assert.deepEqual(byResource.get('mcp://nulls.example/count_quokkas')!.signals, { settleCount7d: 0, rejectionRate7d: 0 });
    for (const listing of found) assert.equal(listing.debug.recencyBoost, shippedRanking().recency.neverSettled, `${listing.resource} ranks as never settled`);

    // null is the only stand-in accepted: other wrong values are still refused, naming the member.
    const wrong = await importListings(
      b.container.catalog.writer,
      parseListingFile(JSON.stringify([{ ...settled, signals: { lastSettled: '', settleCount7d: 'none' } }, { ...settled, signals: [] }])),
      { source: 'import' },
    );
    assert.deepEqual(
      wrong.rejected.map((r) => [r.index, r.errors.map((e) => e.path)]),
      [[0, ['signals.lastSettled', 'signals.settleCount7d']], [1, ['signals']]],
    );
    const odd: Array<[string, unknown]> = [
      ['lastSettled', true], ['lastSettled', {}], ['lastSettled', '2026-13-40T00:00:00Z'], ['lastSettled', 0],
      ['settleCount7d', -1], ['settleCount7d', 1.5], ['settleCount7d', '3'], ['settleCount7d', [null]],
      ['rejectionRate7d', 2], ['rejectionRate7d', -0.1], ['rejectionRate7d', 'NaN'], ['rejectionRate7d', false],
    ];
    for (const [member, value] of odd) {
      assert.deepEqual(validateListingInput({ ...settled, signals: { [member]: value } }).map((e) => e.path), [`signals.${member}`], `${member}: ${JSON.stringify(value)}`);
    }
  });

  it('the import command reports each rejected entry with its index and reasons and exits 1', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(join(tmpdir(), 'catalog-import-'));
    const file = join(dir, 'listings.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify(httpInput({ resource: 'https://cli.example/ok' })),
        JSON.stringify({ ...httpInput({ resource: 'https://cli.example/bad' }), payment: { ...httpInput().payment, amount: '1.50' } }),
        '{broken',
        JSON.stringify({ type: 'mcp', resource: 'mcp://cli.example/t', name: 't' }),
      ].join('\n'),
    );
    const env = {
      ...process.env,
      LISTINGS_ALIAS: a.config.listingsAlias,
      LISTINGS_INDEX: a.config.listingsIndex,
      REDIS_PREFIX: a.config.redisPrefix,
      LOG_LEVEL: 'error',
    };
    const result = await run(process.execPath, ['--import', 'tsx', 'scripts/import.ts', file], { env }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /rejected entry #1: payment\.amount: must be a base-10 integer string/);
    assert.match(result.stderr, /rejected entry #2: \(root\): line 3 is not valid JSON/);
    assert.match(result.stderr, /rejected entry #3: .*description: is required.*inputSchema: is required.*payment: is required/);
    assert.match(result.stdout, /imported 1 of 4 listings \(1 new, 0 updated\), 3 rejected/);
    const id = buildListingDocument(httpInput({ resource: 'https://cli.example/ok' }), { source: 'import' }, new Date()).id;
    assert.ok(await a.container.catalog.reader.get(id), 'the valid entry was imported and applied');
  });
});
