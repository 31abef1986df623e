/**
 * Whether each synonym group of the shipped list earns its place (issue 23, "synonym entries that
 * generalise"), on the tuning set ONLY (eval/relevance): the held-out set (eval/heldout) is never
 * tuned on, so this command cannot load it. The set is imported and embedded once; the full
 * ranking is measured with the whole list, then with each group left out in turn, and with no
 * list at all. A group whose removal does not lower nDCG@10 or raise the grade-0 first count is
 * not earning its place here. Check a change on both sets afterwards with `npm run bench:relevance`.
 *
 *   npm run tune:synonyms
 */
import { parseCommandLine, runMain } from './lib/cliOptions.js';
import { openJudgedDeployment, type JudgedDeployment } from './lib/judgedDeployment.js';
import { loadJudgedSet } from './lib/judgedSet.js';
import { summarize } from './lib/relevanceMetrics.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

const USAGE = 'usage: tune-synonyms';

/** Replaces the scratch index's synonym list in one mapping update and applies it. */
async function setGroups(deployment: JudgedDeployment, groups: readonly string[][]): Promise<void> {
  const tunables = new RankingTunablesIndex(deployment.service.elasticsearch, deployment.service.config.listingsAlias);
  const stored = await tunables.read();
  const ranking = stored.meta.ranking as { synonyms: Record<string, unknown> };
  await tunables.writeRankingMeta(stored.index, { ...stored.meta, ranking: { ...ranking, synonyms: { ...ranking.synonyms, groups } } });
  await deployment.service.container.search.ranking.refresh();
}

async function main(): Promise<void> {
  parseCommandLine({ options: {} }, USAGE);
  const set = loadJudgedSet();
  const started = Date.now();
  const deployment = await openJudgedDeployment(set, (what) => process.stderr.write(`tuning set, ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`));
  try {
    const shipped = (await deployment.service.container.search.ranking.current()).synonyms.groups.map((g) => [...g]);
    const measure = async () => summarize((await deployment.rankAll()).map((run) => run.outcome));
    const all = await measure();
    process.stdout.write(
      `\nsynonym groups on the tuning set (eval/relevance: ${deployment.listings} listings, ${set.queries.length} queries), full ranking; ` +
        `whole list: nDCG@10 ${all.ndcg10.toFixed(3)}, grade 0 first ${all.grade0First}\n\n| left out | nDCG@10 | change | grade 0 first |\n|---|---|---|---|\n`,
    );
    for (let i = 0; i < shipped.length; i++) {
      await setGroups(deployment, shipped.filter((_, j) => j !== i));
      const s = await measure();
      process.stdout.write(`| ${i}: ${shipped[i]![0]} | ${s.ndcg10.toFixed(3)} | ${(s.ndcg10 - all.ndcg10).toFixed(3)} | ${s.grade0First} |\n`);
    }
    await setGroups(deployment, []);
    const none = await measure();
    process.stdout.write(`| every group | ${none.ndcg10.toFixed(3)} | ${(none.ndcg10 - all.ndcg10).toFixed(3)} | ${none.grade0First} |\n`);
    // The first pass over a fresh index can differ from later ones (its caches are cold): the whole list again, last.
    await setGroups(deployment, shipped);
    const again = await measure();
    process.stdout.write(`| none (whole list again) | ${again.ndcg10.toFixed(3)} | ${(again.ndcg10 - all.ndcg10).toFixed(3)} | ${again.grade0First} |\n`);
  } finally {
    await deployment.close();
  }
}

runMain('tune-synonyms', main);
