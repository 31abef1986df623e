import assert from 'node:assert/strict';
import { OutcomeRanking } from '../../src/outcomes/outcomeRanking.js';
import { NO_LINKS_RECOUNT_MS, OutcomeLinkIndex, type OutcomeLink } from '../../src/store/elasticsearch/outcomeLinks.js';

type ElasticsearchClient = ConstructorParameters<typeof OutcomeLinkIndex>[0];

const settings = { weight: 60, k: 100, minSimilarity: 0.3, minPayers: 3, saturation: 2, halfLifeDays: 30 };
const vector = { values: new Array<number>(384).fill(0.05), model: 'm', otherModelsStored: false };
const now = Date.parse('2026-12-02T12:00:00Z');

/** An Elasticsearch client that holds the links of one index in memory and counts its calls. */
function fakeClient(options: { indexExists: boolean }) {
  const stored: OutcomeLink[] = [];
  const calls = { count: 0, search: 0 };
  let exists = options.indexExists;
  const client = {
    count: async () => {
      calls.count++;
      if (!exists) throw Object.assign(new Error('index_not_found_exception'), { meta: { statusCode: 404 } });
      return { count: stored.length };
    },
    search: async () => {
      calls.search++;
      if (!exists) throw Object.assign(new Error('index_not_found_exception'), { meta: { statusCode: 404 } });
      return { hits: { hits: stored.map((l) => ({ _score: 1, fields: { listingId: [l.listingId], payer: [l.payer], at: [l.at] } })) } };
    },
    bulk: async ({ operations }: { operations: unknown[] }) => {
      stored.push(...(operations.filter((_, i) => i % 2 === 1) as OutcomeLink[]));
      return { errors: false };
    },
    indices: { exists: async () => exists, create: async () => ((exists = true), {}), refresh: async () => ({}) },
    cluster: { health: async () => ({}) },
  };
  return { client: client as unknown as ElasticsearchClient, calls, stored };
}

const link = (payer: string): OutcomeLink => ({ q: 'weather forecast', vector: vector.values, model: 'm', listingId: 'lst_weather', payer, payTo: '0xseller', at: new Date(now - 1000).toISOString(), source: 'traffic' });

let indexSeq = 0;
const freshIndex = () => `unit-outcome-lookup-${process.pid}-${++indexSeq}-outcomes`;

describe('unit: the paid-outcome look-up costs nothing without links (outcomes/outcomeRanking.ts, issue 46)', () => {
  it('no links index: no kNN search on any ranked search, one count a second at most', async () => {
    const { client, calls } = fakeClient({ indexExists: false });
    let clock = now;
    const ranking = new OutcomeRanking(new OutcomeLinkIndex(client, freshIndex(), () => clock));
    for (let i = 0; i < 50; i++) assert.deepEqual(await ranking.liftsFor(vector, settings, now), []);
    assert.equal(calls.search, 0);
    assert.equal(calls.count, 1);
    clock += NO_LINKS_RECOUNT_MS;
    assert.equal(await ranking.active(settings), false);
    assert.equal(calls.count, 2);
    assert.equal(calls.search, 0);
  });

  it('an empty links index: skipped too; outcomes.weight 0: not even counted', async () => {
    const { client, calls } = fakeClient({ indexExists: true });
    const ranking = new OutcomeRanking(new OutcomeLinkIndex(client, freshIndex(), () => now));
    assert.equal(await ranking.active({ weight: 0 }), false);
    assert.equal(calls.count, 0);
    assert.deepEqual(await ranking.liftsFor(vector, settings, now), []);
    assert.equal(calls.search, 0);
  });

  it('links written in this process (the recorder\'s own index object) lift at once, the look-up running every search', async () => {
    const index = freshIndex();
    const { client, calls } = fakeClient({ indexExists: false });
    const ranking = new OutcomeRanking(new OutcomeLinkIndex(client, index, () => now));
    assert.deepEqual(await ranking.liftsFor(vector, settings, now), []);
    // The facilitator's recorder holds another OutcomeLinkIndex of the same index.
    await new OutcomeLinkIndex(client, index, () => now).write(['0x1', '0x2', '0x3', '0x4', '0x5'].map(link));
    const [lift] = await ranking.liftsFor(vector, settings, now);
    assert.equal(lift?.id, 'lst_weather');
    assert.equal(lift?.payers, 5);
    assert.ok(lift!.boost > 0 && lift!.boost <= settings.weight);
    await ranking.liftsFor(vector, settings, now);
    assert.equal(calls.search, 2);
  });

  it('links written elsewhere (another gateway, the import command) count within a second', async () => {
    const index = freshIndex();
    const { client, stored } = fakeClient({ indexExists: true });
    let clock = now;
    const ranking = new OutcomeRanking(new OutcomeLinkIndex(client, index, () => clock));
    assert.equal(await ranking.active(settings), false);
    stored.push(...['0x1', '0x2', '0x3'].map(link));
    assert.equal(await ranking.active(settings), false);
    clock += NO_LINKS_RECOUNT_MS;
    assert.equal(await ranking.active(settings), true);
    assert.equal((await ranking.liftsFor(vector, settings, now))[0]?.payers, 3);
  });

  it('a count that fails runs the look-up as before (its own failure handling applies)', async () => {
    const { client, calls } = fakeClient({ indexExists: true });
    (client as unknown as { count: () => Promise<never> }).count = async () => {
      throw new Error('connection refused');
    };
    const ranking = new OutcomeRanking(new OutcomeLinkIndex(client, freshIndex(), () => now));
    assert.equal(await ranking.active(settings), true);
    await ranking.liftsFor(vector, settings, now);
    assert.equal(calls.search, 1);
  });
});
