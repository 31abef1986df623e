/**
 * Whether each synonym group of the shipped list earns its place (issue 23, "synonym entries that
 * generalise"), on the tuning sets ONLY (eval/relevance and eval/tuning2, lab/lib/tuningSets.ts):
 * the held-out sets are never tuned on, so this command cannot load them. Each set is imported and
 * embedded once; the full ranking is measured with the whole list, then with each group left out
 * in turn, and with no list at all, pooled (every query once) and per set. A group whose removal
 * does not lower the pooled nDCG@10 or raise the grade-0 first count is not earning its place. Check a change on both sets afterwards with `npm run bench -- relevance`.
 *
 *   npm run bench -- tune:synonyms
 */
import { parseCommandLine, runMain } from '../../src/door.js';
import type { JudgedDeployment } from '../lib/judgedDeployment.js';
import { grade0Cell, ndcgCell, openTuningSets, type TuningSets } from '../lib/tuningSets.js';
import { RankingTunablesIndex } from '../../src/door.js';

const USAGE = 'usage: tune-synonyms';

/** Replaces the scratch index's synonym list in one mapping update and applies it. */
async function setGroups(deployment: JudgedDeployment, groups: readonly string[][]): Promise<void> {
  const tunables = new RankingTunablesIndex(deployment.service.elasticsearch, deployment.service.config.listingsAlias);
  const stored = await tunables.read();
  const ranking = stored.meta.ranking as { synonyms: Record<string, unknown> };
  await tunables.writeRankingMeta(stored.index, { ...stored.meta, ranking: { ...ranking, synonyms: { ...ranking.synonyms, groups } } });
  await deployment.service.container.search.ranking.refresh();
}

async function setGroupsEverywhere(tuning: TuningSets, groups: readonly string[][]): Promise<void> {
  for (const { deployment } of tuning.sets) await setGroups(deployment, groups);
}

async function main(): Promise<void> {
  parseCommandLine({ options: {} }, USAGE);
  const started = Date.now();
  const tuning = await openTuningSets((what) => process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s, ${what}\n`));
  try {
    const shipped = (await tuning.sets[0]!.deployment.service.container.search.ranking.current()).synonyms.groups.map((g) => [...g]);
    const all = await tuning.measure();
    const change = (m: typeof all) => (m.pooled.ndcg10 - all.pooled.ndcg10).toFixed(3);
    process.stdout.write(
      `\nsynonym groups on the tuning sets (${tuning.description}), full ranking, pooled (per set); ` +
        `whole list: nDCG@10 ${ndcgCell(all)}, grade 0 first ${grade0Cell(all)}\n\n| left out | nDCG@10 | change | grade 0 first |\n|---|---|---|---|\n`,
    );
    for (let i = 0; i < shipped.length; i++) {
      await setGroupsEverywhere(tuning, shipped.filter((_, j) => j !== i));
      const m = await tuning.measure();
      process.stdout.write(`| ${i}: ${shipped[i]![0]} | ${ndcgCell(m)} | ${change(m)} | ${grade0Cell(m)} |\n`);
    }
    await setGroupsEverywhere(tuning, []);
    const none = await tuning.measure();
    process.stdout.write(`| every group | ${ndcgCell(none)} | ${change(none)} | ${grade0Cell(none)} |\n`);
    // The first pass over a fresh index can differ from later ones (its caches are cold): the whole list again, last.
    await setGroupsEverywhere(tuning, shipped);
    const again = await tuning.measure();
    process.stdout.write(`| none (whole list again) | ${ndcgCell(again)} | ${change(again)} | ${grade0Cell(again)} |\n`);
  } finally {
    await tuning.close();
  }
}

runMain('tune-synonyms', main);
