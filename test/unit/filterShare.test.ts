import assert from 'node:assert/strict';
import { FilterShare, type ListingCounter } from '../../src/search/filterShare.js';
import { pageBody } from '../../src/search/queryBuilder.js';
import { filterClauses } from '../../src/search/readClauses.js';
import { planRead } from '../../src/search/readPlan.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';
import { shippedRanking, type RankingSettings } from '../../src/search/rankingSettings.js';

type Json = Record<string, unknown>;

/** A catalog of `all` listings, `mcp` of them MCP tools, that counts its counts. */
function catalog(all: number, mcp: number): ListingCounter & { counts: number; fail: boolean } {
  return {
    counts: 0,
    fail: false,
    async countMatching(filter: Json[]) {
      this.counts += 1;
      if (this.fail) throw new Error('index unavailable');
      assert.deepEqual(filter[filter.length - 1], { exists: { field: 'embedding' } }, 'listings the kNN search sees');
      return filter.length === 1 ? all : JSON.stringify(filter).includes('"mcp"') ? mcp : all - mcp;
    },
  };
}

const filtersOf = (query: string) => filterClauses(parseReadRequest('search', Object.fromEntries(new URLSearchParams(query))).filters).filter;

describe('unit: the share of the catalog a read\'s filters match', () => {
  it('is the filtered count over the whole catalog; none without filters', async () => {
    const share = new FilterShare(catalog(1000, 100));
    assert.equal(await share.of(filtersOf('q=x&type=mcp')), 0.1);
    assert.equal(await share.of(filtersOf('q=x&type=http')), 0.9);
    assert.equal(await share.of([]), undefined);
  });

  it('counts each distinct filter set (and the catalog) once a minute, then again', async () => {
    let now = 0;
    const counter = catalog(1000, 100);
    const share = new FilterShare(counter, () => now);
    await Promise.all([share.of(filtersOf('q=a&type=mcp')), share.of(filtersOf('q=b&type=mcp'))]);
    assert.equal(counter.counts, 2, 'the filtered count and the whole catalog, each once, in flight shared');
    await share.of(filtersOf('q=c&type=http'));
    assert.equal(counter.counts, 3);
    now = 61_000;
    await share.of(filtersOf('q=a&type=mcp'));
    assert.equal(counter.counts, 5);
  });

  it('is unknown when a count fails, and asks again next time', async () => {
    const counter = catalog(1000, 100);
    counter.fail = true;
    const share = new FilterShare(counter);
    assert.equal(await share.of(filtersOf('q=a&type=mcp')), undefined);
    counter.fail = false;
    assert.equal(await share.of(filtersOf('q=a&type=mcp')), 0.1);
  });
});

describe('unit: where the kNN search applies the read\'s filters', () => {
  const settings: RankingSettings = { ...shippedRanking(), semantic: { ...shippedRanking().semantic, weight: 40, k: 20, numCandidates: 20, preFilterMaxShare: 0.3 } };
  const vector = { values: [0.1, 0.2], model: 'm', otherModelsStored: false };
  const knnOf = (body: Json): Json => {
    const found: Json[] = [];
    const visit = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node && typeof node === 'object') {
        if ('knn' in node) found.push((node as { knn: Json }).knn);
        Object.values(node).forEach(visit);
      }
    };
    visit(body);
    assert.equal(found.length, 1);
    return found[0]!;
  };
  const bodyOf = (request: ReturnType<typeof parseReadRequest>, queryVector: typeof vector, filterShare?: number) =>
    pageBody(planRead(request, { settings, tunables: 0, now: 0, parts: [{ q: request.q!, vector: queryVector }], ...(filterShare !== undefined ? { filterShare } : {}) }));
  const body = (query: string, filterShare?: number) => bodyOf(parseReadRequest('search', Object.fromEntries(new URLSearchParams(query))), vector, filterShare);

  it('a selective filter, or one of unknown share, stays inside it with k as tuned', () => {
    for (const share of [0.1, 0.3, undefined]) {
      const knn = knnOf(body('q=weather&type=mcp', share));
      assert.deepEqual(knn.filter, [{ term: { type: 'mcp' } }]);
      assert.equal(knn.k, 20);
    }
  });

  it('a broad filter is left to the query, k and candidates scaled by 1 / share', () => {
    const built = body('q=weather&type=http', 0.8);
    const knn = knnOf(built);
    assert.deepEqual(knn.filter, []);
    assert.equal(knn.k, 25);
    assert.equal(knn.num_candidates, 25);
    assert.deepEqual((built.query as { bool: { filter: Json[] } }).bool.filter, [{ term: { type: 'http' } }], 'the query still holds every hit to the filter');
  });

  it('the model filter always stays inside (vectors of another model are never compared)', () => {
    const built = bodyOf(parseReadRequest('search', { q: 'weather', type: 'http' }), { ...vector, otherModelsStored: true }, 0.8);
    assert.deepEqual(knnOf(built).filter, [{ term: { embeddingModel: 'm' } }]);
  });
});
