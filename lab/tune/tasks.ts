/**
 * Tunes task reads (issue 45) on the task set's TUNING half only (lab/eval/tasks/tuning.json; the
 * held-out half cannot be loaded here): the set is imported and embedded once, then every
 * combination of the `--grid` values is set on the scratch index and the tuning queries are ranked
 * without and with the history split loaded (lab/eval/tasks/history.jsonl, through the outcome
 * import). Prints Recall@5, completeness@5 and nDCG@5 per combination; `--verbose` lists, for the
 * last combination, each query's needs as split and the needs missed in the first five.
 *
 *   npm run bench -- tune:tasks [-- --grid tasks.head=4,5 --grid outcomes.weight=20,30] [--verbose]
 */
import { fail, parseCommandLine, runMain, splitNeeds } from '../../src/door.js';
import { openJudgedDeployment, type Ranked } from '../lib/judgedDeployment.js';
import { loadTaskSet, taskHistoryAsOf } from '../lib/judgedSet.js';
import { summarizeTasks } from '../lib/relevanceMetrics.js';

const USAGE = 'usage: tune-tasks [--grid KEY=V1,V2 ...] [--verbose]';

function combinations(grid: Array<[string, string[]]>): Array<Array<[string, string]>> {
  return grid.reduce<Array<Array<[string, string]>>>((acc, [key, values]) => acc.flatMap((combo) => values.map((v) => [...combo, [key, v] as [string, string]])), [[]]);
}

const cell = (runs: Ranked[]) => {
  const s = summarizeTasks(runs.map((r) => r.outcome))!;
  return `${s.recall5.toFixed(3)} / ${s.complete5.toFixed(3)} / ${s.ndcg5.toFixed(3)}`;
};

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { grid: { type: 'string', multiple: true }, verbose: { type: 'boolean', default: false } } }, USAGE);
  const grid = (values.grid ?? []).map((g): [string, string[]] => {
    const at = g.indexOf('=');
    if (at <= 0) fail(`--grid takes KEY=V1,V2, got ${g}\n${USAGE}`);
    return [g.slice(0, at), g.slice(at + 1).split(',').map((v) => v.trim())];
  });
  const set = loadTaskSet('tuning');
  const started = Date.now();
  const deployment = await openJudgedDeployment(set, (what) => process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`));
  try {
    const outcomes = (await deployment.service.container.search.ranking.current()).outcomes;
    const combos = combinations(grid);
    const without: Ranked[][] = [];
    await deployment.setTunable('outcomes.weight', '0');
    for (const combo of combos) {
      for (const [key, value] of combo) if (key !== 'outcomes.weight') await deployment.setTunable(key, value);
      without.push(await deployment.rankAll());
    }
    await deployment.importHistory(taskHistoryAsOf(set, new Date()));
    process.stdout.write(
      `\ntask set, tuning half (${set.queries.length} queries): Recall@5 / completeness@5 / nDCG@5\n\n| ${grid.map(([k]) => k).join(' | ')} | without history | with history |\n|${grid.map(() => '---|').join('')}---|---|\n`,
    );
    let last: Ranked[] = [];
    for (const [i, combo] of combos.entries()) {
      await deployment.setTunable('outcomes.weight', String(outcomes.weight));
      for (const [key, value] of combo) await deployment.setTunable(key, value);
      last = await deployment.rankAll();
      process.stdout.write(`| ${combo.map(([, v]) => v).join(' | ')} | ${cell(without[i]!)} | ${cell(last)} |\n`);
    }
    if (values.verbose) {
      for (const [i, run] of without[without.length - 1]!.entries()) {
        const covered = run.outcome.needsCovered5 ?? [];
        if (covered.every(Boolean)) continue;
        const q = run.query;
        process.stdout.write(`\n${q.id} ${JSON.stringify(q.q)}\n  split: ${JSON.stringify(splitNeeds(q.q))}\n`);
        q.needs!.forEach((need, n) => process.stdout.write(`  need ${n} ${covered[n] ? 'covered' : 'MISSED'}: ${need.slice(0, 3).join(' ')}\n`));
        run.results.slice(0, 5).forEach((l, r) => process.stdout.write(`   ${r + 1}. [${run.outcome.rankedGrades[r]}] ${l.resource}${last[i]!.results[r] ? `   (with history: ${last[i]!.results[r]!.resource})` : ''}\n`));
      }
    }
  } finally {
    await deployment.close();
  }
}

runMain('tune-tasks', main);
