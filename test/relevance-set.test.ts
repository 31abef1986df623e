import assert from 'node:assert/strict';
import { validateListingInput } from '../src/catalog/validation.js';
import { entriesAsOf, HELDOUT_SET_DIR, loadJudgedSet, SEALED_HELDOUT_SET_DIR, TUNING2_SET_DIR, type JudgedSet } from '../lab/lib/judgedSet.js';
import { ndcgAt, precisionAt, reciprocalRank, summarize } from '../lab/lib/relevanceMetrics.js';

/**
 * What every judged set must be: each listing one the import accepts, both listing types, at least
 * `minListings` listings and `minQueries` queries, a grade-3 listing for every query and ten spam
 * listings or more. Returns the listing inputs for a set's own checks.
 */
function assertConsistentSet(set: JudgedSet, minListings: number, minQueries: number): Array<Record<string, any>> {
  const inputs = set.entries.map((e) => ('value' in e ? (e.value as Record<string, any>) : assert.fail(`entry ${e.index}: ${e.error.message}`)));
  assert.ok(inputs.length >= minListings, `${inputs.length} listings`);
  for (const [i, input] of inputs.entries()) assert.deepEqual(validateListingInput(input), [], `listing #${i} ${input.resource}`);
  assert.ok(inputs.some((l) => l.type === 'mcp') && inputs.some((l) => l.type === 'http'));
  assert.ok(set.queries.length >= minQueries, `${set.queries.length} queries`);
  for (const query of set.queries) assert.ok(Object.values(query.judgments).includes(3), `${query.id} has a grade-3 listing`);
  assert.ok(set.spam.size >= 10);
  return inputs;
}

describe('relevance benchmark: measures and the judged set', () => {
  it('computes exponential-gain nDCG, reciprocal rank and precision by hand-checked examples', () => {
    // DCG = (2^3-1)/log2(2) + 0 + (2^2-1)/log2(4) = 7 + 1.5; ideal from every judged grade: 3, 2, 2, 1.
    const ideal = 7 + 3 / Math.log2(3) + 3 / Math.log2(4) + 1 / Math.log2(5);
    assert.ok(Math.abs(ndcgAt(10, [3, 0, 2], [3, 2, 2, 1]) - 8.5 / ideal) < 1e-12);
    assert.equal(ndcgAt(10, [3, 2, 2, 1], [1, 2, 3, 2]), 1, 'the ideal order scores 1');
    assert.equal(ndcgAt(2, [0, 0, 3], [3]), 0, 'past the cut-off counts nothing');
    assert.equal(ndcgAt(10, [], [3, 2]), 0);
    assert.equal(reciprocalRank([1, 0, 2, 3]), 1 / 3, 'grade 1 is not relevant');
    assert.equal(reciprocalRank([1, 1]), 0);
    assert.equal(precisionAt(3, [3, 0, 2, 3]), 2 / 3);
    assert.equal(precisionAt(3, [3]), 1 / 3, 'a missing result is not relevant');
    const summary = summarize([
      { rankedGrades: [0, 3], judgedGrades: [3], spamFirst: true },
      { rankedGrades: [], judgedGrades: [3], spamFirst: false },
      { rankedGrades: [3], judgedGrades: [3], spamFirst: false },
    ]);
    assert.deepEqual(
      { grade0First: summary.grade0First, noResults: summary.noResults, spamFirst: summary.spamFirst, mrr10: summary.mrr10 },
      { grade0First: 1, noResults: 1, spamFirst: 1, mrr10: (1 / 2 + 0 + 1) / 3 },
    );
  });

  it('ships a consistent set the import accepts: 300+ listings of both types, 60+ judged queries of every category', () => {
    const set = loadJudgedSet(); // throws on a judgment of an unknown listing, a bad grade or a judged spam listing
    const inputs = assertConsistentSet(set, 300, 60);
    const amounts = inputs.map((l) => Number(l.payment.amount));
    assert.equal(Math.min(...amounts), 100, 'cheapest 0.0001 USDC');
    assert.equal(Math.max(...amounts), 5_000_000, 'dearest 5 USDC');
    assert.ok(new Set(inputs.map((l) => l.payment.scheme)).size === 2, 'exact and upto');
    assert.ok(inputs.some((l) => l.signals?.lastSettled) && inputs.some((l) => l.signals && !l.signals.lastSettled));
    assert.ok(inputs.some((l) => l.signals?.lastSettled === null), 'null signals, as other catalogs export them');

    const categories = new Set(set.queries.flatMap((q) => q.categories));
    for (const category of ['misspelling', 'inflection', 'vocabulary', 'tool-name', 'type-filter', 'distractor', 'spam-target', 'near-duplicate', 'expensive-best', 'never-settled-best']) {
      assert.ok(categories.has(category), `a query of category ${category}`);
    }
  });

  for (const [dir, minListings, minQueries] of [
    [TUNING2_SET_DIR, 250, 200],
    [HELDOUT_SET_DIR, 250, 150],
    [SEALED_HELDOUT_SET_DIR, 220, 70],
  ] as const) {
    const name = dir.split('/').filter(Boolean).pop();
    it(`ships the judged set eval/${name} consistent and accepted by the import, with spam and every query answered`, () => {
      assertConsistentSet(loadJudgedSet(dir), minListings, minQueries);
    });
  }

  it('keeps each listing as long ago settled as the set says, whenever the benchmark runs', () => {
    const set = loadJudgedSet();
    const later = new Date(set.referenceTime.getTime() + 40 * 86_400_000);
    const moved = entriesAsOf(set, later);
    set.entries.forEach((entry, i) => {
      const before = 'value' in entry ? (entry.value as { signals?: { lastSettled?: string | null } }).signals?.lastSettled : undefined;
      const after = (moved[i] as { value: { signals?: { lastSettled?: string | null } } }).value.signals?.lastSettled;
      if (typeof before !== 'string') return assert.equal(after, before);
      assert.equal(later.getTime() - new Date(after!).getTime(), set.referenceTime.getTime() - new Date(before).getTime());
    });
  });
});
