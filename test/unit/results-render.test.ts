import assert from 'node:assert/strict';
import { formatValue, renderHeadlineTable, renderResultsMarkdown, replaceBetweenMarkers, END_MARKER, START_MARKER } from '../../lab/results/render.js';
import { parseResults, upsertResult, type Result, type ResultsFile } from '../../lab/results/results.js';

/** The lab's results renderer (lab/results/render.ts): pure functions over a results object. */
const ndcg: Result = {
  name: 'relevance.ndcg10.heldout',
  label: 'nDCG@10, held-out set',
  value: 0.897,
  unit: '',
  set: 'eval/heldout (160 queries)',
  short: '160 queries',
  group: 'Relevance',
  date: '2026-11-27',
  command: 'npm run bench:relevance -- --set all',
  commit: 'c6acf50',
  headline: true,
  journal: '2026-11-27-one-text-field.md',
};
const cost: Result = {
  name: 'search.esCpu.xReference.100k',
  label: 'Elasticsearch CPU per ranked search | x the reference',
  value: 1.97,
  unit: 'x',
  set: '100,000 listings',
  group: 'Search cost',
  date: '2026-11-27',
  command: 'npm run bench:table -- --alias r100',
  target: '<= 2x',
  note: 'median of two runs',
};
const ingest: Result = {
  name: 'ingest.bulkLoad.listingsPerSecond',
  label: 'Bulk load',
  value: 8354,
  unit: 'listings/s',
  set: '20,000 listings',
  group: 'Write path',
  date: '2026-11-26',
  command: 'npm run bench:bulk',
  headline: true,
};
const file: ResultsFile = { version: 1, results: [ndcg, cost, ingest] };

describe('lab results renderer', () => {
  it('writes values with their units as a reader does', () => {
    assert.equal(formatValue({ value: 1.97, unit: 'x' }), '1.97x');
    assert.equal(formatValue({ value: 91, unit: '%' }), '91%');
    assert.equal(formatValue({ value: 3.86, unit: 'ms' }), '3.86 ms');
    assert.equal(formatValue({ value: 11377, unit: 'listings/s' }), '11,377 listings/s');
    assert.equal(formatValue({ value: 0.897, unit: '' }), '0.897');
    assert.equal(formatValue({ value: 0, unit: 'count' }), '0');
  });

  it('renders the headline table from the headline figures only, grouped', () => {
    const table = renderHeadlineTable(file).split('\n');
    assert.deepEqual(table, [
      '| | Figure | Value | Target | Workload | Measured |',
      '|---|---|---|---|---|---|',
      '| Relevance | nDCG@10, held-out set | **0.897** |  | 160 queries | 2026-11-27 |',
      '| Write path | Bulk load | **8,354 listings/s** |  | 20,000 listings | 2026-11-26 |',
    ]);
  });

  it('renders every figure with its command, commit and journal entry in RESULTS.md', () => {
    const md = renderResultsMarkdown(file);
    assert.match(md, /^# Current results\n/);
    assert.deepEqual(
      md.split('\n').filter((line) => line.startsWith('## ')),
      ['## Relevance', '## Search cost', '## Write path'],
    );
    assert.ok(md.includes('| nDCG@10, held-out set | **0.897** | eval/heldout (160 queries) |  | 2026-11-27 | `npm run bench:relevance -- --set all` | `c6acf50` | [journal](../journal/2026-11-27-one-text-field.md) |'));
    // A pipe in a label does not split the row.
    assert.ok(md.includes('| Elasticsearch CPU per ranked search \\| x the reference | **1.97x** | 100,000 listings | <= 2x |'));
    assert.ok(md.endsWith('\n') && !md.endsWith('\n\n'));
  });

  it('replaces only what is between the markers, and refuses a text without them', () => {
    const readme = `# Title\n\n${START_MARKER}\nold table\n${END_MARKER}\n\nafter\n`;
    assert.equal(replaceBetweenMarkers(readme, '| new |\n'), `# Title\n\n${START_MARKER}\n| new |\n${END_MARKER}\n\nafter\n`);
    assert.equal(replaceBetweenMarkers(replaceBetweenMarkers(readme, 'x'), 'x'), replaceBetweenMarkers(readme, 'x'));
    assert.throws(() => replaceBetweenMarkers('no markers here', 'x'), /results:start/);
    assert.throws(() => replaceBetweenMarkers(`${END_MARKER}\n${START_MARKER}`, 'x'), /in that order/);
  });

  it('updates a figure by name, appends a new one, and refuses a malformed one', () => {
    const changed = upsertResult(file, { ...cost, value: 1.91, date: '2026-11-28' });
    assert.deepEqual(changed.results.map((r) => [r.name, r.value]), [
      ['relevance.ndcg10.heldout', 0.897],
      ['search.esCpu.xReference.100k', 1.91],
      ['ingest.bulkLoad.listingsPerSecond', 8354],
    ]);
    assert.equal(file.results[1]!.value, 1.97, 'the input is left as it was');
    const added = upsertResult(file, { ...ingest, name: 'ingest.freshness.p99', value: 1013, unit: 'ms' });
    assert.equal(added.results.length, 4);
    assert.throws(() => upsertResult(file, { ...ingest, value: Number.NaN }), /finite number/);
    assert.throws(() => upsertResult(file, { ...ingest, date: 'yesterday' }), /YYYY-MM-DD/);
  });

  it('reads results.json text and refuses duplicate names', () => {
    assert.deepEqual(parseResults(JSON.stringify(file)), file);
    assert.throws(() => parseResults(JSON.stringify({ version: 1, results: [ndcg, ndcg] })), /given twice/);
    assert.throws(() => parseResults('{"results": []}'), /version/);
  });
});
