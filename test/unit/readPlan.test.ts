import assert from 'node:assert/strict';
import { CursorCodec } from '../../src/search/cursor.js';
import type { FilterShare } from '../../src/search/filterShare.js';
import { pageBody } from '../../src/search/queryBuilder.js';
import type { RankingCache } from '../../src/search/rankingCache.js';
import { shippedRanking, type RankingSettings } from '../../src/search/rankingSettings.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';
import { planRead, relevanceWith, type PlanContext } from '../../src/search/readPlan.js';
import { ReadPlanner } from '../../src/search/readPlanner.js';
import type { TypoPass, TypoVerdict } from '../../src/search/typoPass.js';
import type { QueryEmbeddings, QueryVector } from '../../src/semantic/queryEmbeddings.js';

type Json = Record<string, unknown>;

const semanticOn = (fusion: RankingSettings['semantic']['fusion'] = 'weighted'): RankingSettings => ({
  ...shippedRanking(),
  semantic: { ...shippedRanking().semantic, weight: 40, fusion, preFilterMaxShare: 0.3 },
});
/** One tunables object, as the ranking cache hands every read until an operator changes one. */
const SETTINGS = semanticOn();
const vector: QueryVector = { model: 'm', values: [0.1, 0.2], otherModelsStored: false };
const search = (query: Record<string, string>) => parseReadRequest('search', { q: 'weather', ...query });
const plan = (query: Record<string, string>, context: Partial<PlanContext> = {}) =>
  planRead(search(query), { settings: SETTINGS, tunables: 1, now: 1000, parts: [{ q: 'weather', vector }], ...context });

describe('unit: a read planned once', () => {
  it('builds the filters once: the query and the kNN search hold the very same clauses', () => {
    const planned = plan({ type: 'mcp', network: 'base' });
    const semantic = planned.text!.parts[0]!.semantic!;
    assert.equal(semantic.fusion, 'weighted');
    assert.equal(semantic.nearest.filter[0], planned.filters.filter[0], 'the same object, not a second build');
    const body = pageBody(planned);
    assert.equal((body.query as { bool: { filter: unknown } }).bool.filter, planned.filters.filter);
  });

  it('a broad filter (above preFilterMaxShare) is left to the query, k widened', () => {
    const planned = plan({ type: 'http' }, { filterShare: 0.8 });
    const nearest = planned.text!.parts[0]!.semantic!.nearest;
    assert.deepEqual(nearest.filter, []);
    assert.deepEqual(nearest.postFilter, [{ term: { type: 'http' } }]);
    assert.equal(nearest.widen, 1.25);
    assert.deepEqual(planned.carried, { now: 1000, filterShare: 0.8 }, 'the next page keeps the kNN plan and the clock');
  });

  it('where the page starts: the window, a position in it, its tail, or an exact order', () => {
    assert.deepEqual(plan({}).start, { at: 'window', from: 0 });
    assert.equal(plan({}).window, 300);
    const inWindow = plan({}, { cursor: { rank: { size: 100, position: 40 }, now: 7 } });
    assert.deepEqual([inWindow.start, inWindow.window, inWindow.now], [{ at: 'window', from: 40 }, 100, 7], 'a search keeps its window and clock');
    assert.deepEqual(plan({}, { cursor: { rank: { size: 100, tail: true }, searchAfter: [1, 'lst_a'] } }).start, { at: 'tail' });
    const priced = plan({ sort: 'price' }, { cursor: { searchAfter: ['5', 'lst_a'] } });
    assert.deepEqual([priced.start, priced.window, priced.searchAfter], [{ at: 'exact' }, 0, ['5', 'lst_a']]);
    assert.deepEqual(plan({ sort: 'recent' }).carried, {}, 'sort=recent does not score by the clock');
    const resources = planRead(parseReadRequest('resources', { type: 'mcp' }), { settings: semanticOn(), tunables: 1, now: 0 });
    assert.equal(resources.text, undefined);
    assert.deepEqual(resources.start, { at: 'exact' });
  });

  it('shares each query\'s lexical part between reads, whatever the page', () => {
    const first = plan({});
    const second = plan({ limit: '5' }, { cursor: { rank: { size: 300, position: 20 } } });
    assert.equal(first.text!.parts[0]!.lexical, second.text!.parts[0]!.lexical);
    assert.ok(Object.isFrozen(first.text!.parts[0]!.lexical));
  });

  it('the cache key: the whole request, the fields read and the tunables version, never the clock', () => {
    assert.equal(plan({}).cacheKey, plan({}, { now: 5 }).cacheKey);
    assert.notEqual(plan({}).cacheKey, plan({}, { tunables: 2 }).cacheKey);
    assert.notEqual(plan({}).cacheKey, plan({}, { sourceFields: ['id'] }).cacheKey);
    assert.notEqual(plan({}).cacheKey, plan({ explain: '1' }).cacheKey);
    const sameRead = (query: string) => planRead(parseReadRequest('search', Object.fromEntries(new URLSearchParams(query))), { settings: SETTINGS, tunables: 1, now: 0 }).cacheKey;
    assert.equal(sameRead('q=weather&type=mcp&limit=5'), sameRead('limit=5&type=mcp&q=weather'), 'the order of the query string does not matter');
  });

  it('fusion normalised: the kNN search of its own goes first; its neighbours come back as constants', () => {
    const planned = plan({}, { settings: semanticOn('normalised') });
    const part = planned.text!.parts[0]!;
    assert.equal(planned.text!.relevance, undefined, 'waits for the neighbours');
    assert.throws(() => pageBody(planned));
    assert.ok(part.semantic && part.semantic.fusion === 'normalised' && (part.semantic.search as Json)._source === false);
    const relevance = JSON.stringify(relevanceWith(planned.text!.parts, planned.settings, [[{ id: 'lst_a', boost: 40 }]]));
    assert.ok(relevance.includes('"ids":{"values":["lst_a"]}'));
  });

  it('a query of several parts: each part\'s clauses in one relevance query', () => {
    const planned = plan({}, { parts: [{ q: 'weather', vector }, { q: 'translate text' }] });
    assert.equal(planned.text!.parts.length, 2);
    assert.equal(planned.text!.parts[1]!.semantic, undefined, 'a part without a vector has no semantic side');
    const relevance = JSON.stringify(planned.text!.relevance);
    assert.ok(relevance.includes('"query":"weather"') && relevance.includes('"query":"translate text"') && relevance.includes('"knn"'));
  });
});

describe('unit: the read planner', () => {
  const settings = semanticOn();
  const ranking = { current: async () => settings, version: 3 } as unknown as RankingCache;
  const cursors = new CursorCodec(async () => Buffer.from('a-secret-of-sixteen-chars'));

  function planner(verdict: TypoVerdict) {
    const asked = { vectors: [] as string[], checks: 0, shares: [] as unknown[] };
    const typoPass = { check: async () => (asked.checks++, verdict) } as unknown as TypoPass;
    const queryEmbeddings = { vectorFor: async (q: string) => (asked.vectors.push(q), { ...vector, model: q }) } as unknown as QueryEmbeddings;
    const filterShare = { of: async (filter: unknown) => (asked.shares.push(filter), 0.1) } as unknown as FilterShare;
    return { asked, planner: new ReadPlanner({ ranking, cursors, typoPass, queryEmbeddings, filterShare, now: () => 42 }) };
  }

  it('looks each part up once: its typo verdict, its vector, the filters\' share of the plan\'s own filters', async () => {
    const { asked, planner: p } = planner({ needed: false });
    const planned = await p.plan(search({ type: 'mcp' }));
    assert.deepEqual([asked.checks, asked.vectors], [1, ['weather']]);
    assert.equal(asked.shares[0], planned.filters.filter);
    assert.deepEqual(planned.text!.parts[0]!.reading, { typoPass: false });
    assert.deepEqual([planned.now, planned.carried.filterShare], [42, 0.1]);
    assert.ok(planned.cacheKey.startsWith('3\u0000'), 'the tunables version in force');
  });

  it('a misspelled query is embedded as the catalog spells it and read with the typo pass', async () => {
    const { asked, planner: p } = planner({ needed: true, spelled: 'weather' });
    const planned = await p.plan(parseReadRequest('search', { q: 'wether' }));
    assert.deepEqual(asked.vectors, ['wether', 'weather']);
    assert.equal(planned.text!.parts[0]!.vector?.model, 'weather');
    assert.deepEqual(planned.text!.parts[0]!.reading, { typoPass: true, spelled: 'weather' });
  });

  it('a later page decodes its cursor against the request, and keeps its first page\'s share and clock', async () => {
    const { asked, planner: p } = planner({ needed: false });
    const request = search({});
    const cursor = await cursors.encode(request, { rank: { size: 300, position: 20 }, now: 7, filterShare: 0.5 });
    const planned = await p.plan({ ...request, cursor });
    assert.deepEqual([planned.start, planned.now, planned.carried.filterShare, asked.shares.length], [{ at: 'window', from: 20 }, 7, 0.5, 0]);
    await assert.rejects(p.plan({ ...search({ q: 'rain' }), cursor }), /different query/);
  });

  it('a filter-only read looks nothing up', async () => {
    const { asked, planner: p } = planner({ needed: false });
    const planned = await p.plan(parseReadRequest('resources', { type: 'mcp' }));
    assert.deepEqual([asked.checks, asked.vectors.length, asked.shares.length, planned.text], [0, 0, 0, undefined]);
  });
});
