import { strict as assert } from 'node:assert';
import { parseCost, parseRelevance, tableHeader, tableRow } from '../../lab/lib/benchTable.js';

// Excerpts of real reports (2026-11-27), with the tables that precede the ones read.
const RELEVANCE = `
| measure | BM25 alone | full, semantic off | full ranking (all-minilm-l6-v2-q, weighted 40, min 0.35) | full, popularity off |
|---|---|---|---|---|
| nDCG@10 | 0.796 | 0.794 | 0.864 | 0.864 |
| first result graded 0 | 13 (8.1%) | 13 (8.1%) | 4 (2.5%) | 4 (2.5%) |

side by side: the full ranking on the sets it was tuned on and on the held-out sets

| measure | tuning set (eval/relevance) | second tuning set (eval/tuning2) | held-out set (eval/heldout, never tuned on) | second held-out set (eval/heldout2, sealed) | tuning sets pooled |
|---|---|---|---|---|---|
| nDCG@10, full ranking | 0.925 | 0.813 | 0.864 | 0.865 | 0.844 |
| nDCG@10, full, semantic off | 0.878 | 0.749 | 0.794 | 0.794 | 0.785 |
| first result graded 0 | 1 (1.1%) | 20 (8.4%) | 4 (2.5%) | 5 (3.4%) | 21 (6.3%) |
| spam listing first | 0 | 4 | 0 | 0 | 4 |
`;

const COST = `
| workload | gateway p50 | gateway p99 | gateway req/s | direct ES p50 | direct ES p99 | direct ES req/s | p50 ratio | throughput ratio | errors |
|---|---|---|---|---|---|---|---|---|---|
| reference query | | | | 26 ms | 74 ms | 552 | | | 0 |
| search rank | 76 ms | 163 ms | 201 | 53 ms | 115 ms | 281 | 1.43x | 72% | 0 |
| search explain=1 | 85 ms | 160 ms | 179 | 53 ms | 149 ms | 272 | 1.60x | 66% | 0 |

CPU per request (ms), the same rounds on the same index:

| workload | ES, direct | ES, direct, x reference | ES behind the gateway | gateway process |
|---|---|---|---|---|
| reference query | 3.27 | 1.00x |  |  |
| search rank | 6.62 | 2.02x | 7.09 | 2.07 |
| search explain=1 | 6.64 | 2.03x | 7.77 | 2.25 |

explain=1 p50 / plain p50 (gateway): 1.12x
`;

describe('unit: the benchmark table (lab/lib/benchTable.ts)', () => {
  it('reads the full ranking of every set from the side-by-side table, not the per-set tables before it', () => {
    assert.deepEqual(parseRelevance(RELEVANCE), {
      tuning: { ndcg10: 0.925, grade0First: 1, spamFirst: 0 },
      tuning2: { ndcg10: 0.813, grade0First: 20, spamFirst: 4 },
      heldout: { ndcg10: 0.864, grade0First: 4, spamFirst: 0 },
      heldout2: { ndcg10: 0.865, grade0First: 5, spamFirst: 0 },
    });
  });

  it('reads only the sets a run had', () => {
    const two = RELEVANCE.replace(/ second held-out set \(eval\/heldout2, sealed\) \|/, '').replace(/\| 0\.865 \|/, '|');
    assert.deepEqual(Object.keys(parseRelevance(two)), ['tuning', 'tuning2', 'heldout']);
  });

  it("reads the ranked search's CPU and ratios from bench-search's two tables", () => {
    assert.deepEqual(parseCost(COST), {
      referenceMs: 3.27,
      rankedMs: 6.62,
      rankedBehindGatewayMs: 7.09,
      gatewayMs: 2.07,
      throughput: 0.72,
      explainRatio: 1.12,
    });
  });

  it('fails on a report without the row it needs instead of leaving a cell empty', () => {
    assert.throws(() => parseCost(COST.replace(/^\| search rank \| 6\.62.*$/m, '')), /no "search rank" row/);
    assert.throws(() => parseRelevance(RELEVANCE.replace(/^\| spam listing first .*$/m, '')), /no "spam listing first" row/);
    assert.throws(() => parseCost(COST.replace('explain=1 p50 / plain p50', 'explain')), /explain=1 p50 ratio/);
  });

  it('writes one row per code: the multiple of the reference per run, and their median in bold', () => {
    const relevance = parseRelevance(RELEVANCE);
    const cost = parseCost(COST);
    const row = tableRow('HEAD', relevance, [cost, { ...cost, rankedMs: 9.81 }, { ...cost, rankedMs: 5.0 }]);
    assert.match(tableHeader(relevance), /nDCG@10 tuning \/ tuning2 \/ heldout \/ heldout2/);
    assert.match(row, /^\| HEAD \| 0\.925 \/ 0\.813 \/ 0\.864 \/ 0\.865 \| 1 \/ 20 \/ 4 \/ 5 \| 0 \/ 4 \/ 0 \/ 0 \| \*\*2\.02x\*\* \(2\.02x, 3\.00x, 1\.53x\) \| \*\*6\.62\*\* /);
    assert.equal(tableRow('one run', relevance, [cost]).split(' | ')[4], '2.02x');
  });
});
