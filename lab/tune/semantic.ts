/**
 * Chooses semantic.weight and semantic.minSimilarity for an embedding model (EMBEDDING_MODEL) on
 * the tuning sets ONLY (eval/relevance and eval/tuning2, lab/lib/tuningSets.ts): the held-out
 * sets are never tuned on, so this command cannot load them. Each set is imported and embedded
 * once; every pair of the grid is then set on the scratch indices and all queries are ranked with
 * the full ranking; nDCG@10 is printed pooled (every query once) and per set. Compare the chosen
 * pair on both sets afterwards with `npm run bench -- relevance --semantic-weight W --min-similarity S`.
 *
 *   npm run bench -- tune:semantic [-- --weights 20,40,60 --min-similarities 0.35,0.5,0.6]
 *   npm run bench -- tune:semantic --fusions weighted,normalised,rrf --weights 10,20,40,80 --rank-constants 5,60
 *
 * `--fusions` (semantic.fusion, search/semanticFusion.ts; default the shipped one) adds the fusion
 * mode to the grid, `--rank-constants` semantic.rankConstant for `rrf`.
 */
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { grade0Cell, ndcgCell, openTuningSets } from '../lib/tuningSets.js';
import { SEMANTIC_FUSIONS } from '../../src/door.js';

const USAGE = 'usage: tune-semantic [--weights W,W,...] [--min-similarities S,S,...] [--fusions F,F,...] [--rank-constants C,C,...]';

function list(name: string, text: string, range: { min: number; max: number }): string[] {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) fail(`--${name} needs at least one value\n${USAGE}`);
  for (const item of items) numberOption(name, item, { ...range, integer: false });
  return items;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { weights: { type: 'string' }, 'min-similarities': { type: 'string' }, fusions: { type: 'string' }, 'rank-constants': { type: 'string' } } },
    USAGE,
  );
  const weights = list('weights', values.weights ?? '20,40,60', { min: 0, max: 1000 });
  const similarities = list('min-similarities', values['min-similarities'] ?? '0.35,0.5,0.6,0.7', { min: -1, max: 1 });
  const fusions = values.fusions?.split(',').map((f) => f.trim()).filter(Boolean);
  for (const fusion of fusions ?? []) if (!(SEMANTIC_FUSIONS as readonly string[]).includes(fusion)) fail(`--fusions: ${fusion} is not one of ${SEMANTIC_FUSIONS.join(', ')}\n${USAGE}`);
  const rankConstants = list('rank-constants', values['rank-constants'] ?? '60', { min: 0, max: 1000 });
  const started = Date.now();
  const tuning = await openTuningSets((what) => process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s, ${what}\n`));
  try {
    const model = tuning.sets[0]!.deployment.service.config.embeddingModel;
    const shipped = (await tuning.sets[0]!.deployment.service.container.search.ranking.current()).semantic;
    process.stdout.write(
      `\n${model} on the tuning sets (${tuning.description}), full ranking; nDCG@10 and grade 0 first pooled (per set)\n\n` +
        '| fusion | rankConstant | semantic.weight | minSimilarity | nDCG@10 | MRR@10 | precision@3 | first result graded 0 | spam first |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const fusion of fusions ?? [shipped.fusion]) {
      await tuning.setTunable('semantic.fusion', fusion);
      for (const rankConstant of fusion === 'rrf' ? rankConstants : [String(shipped.rankConstant)]) {
        await tuning.setTunable('semantic.rankConstant', rankConstant);
        for (const weight of weights) {
          for (const minSimilarity of similarities) {
            await tuning.setTunable('semantic.minSimilarity', minSimilarity);
            await tuning.setTunable('semantic.weight', weight);
            const m = await tuning.measure();
            const s = m.pooled;
            const c = fusion === 'rrf' ? rankConstant : '';
            process.stdout.write(
              `| ${fusion} | ${c} | ${weight} | ${minSimilarity} | ${ndcgCell(m)} | ${s.mrr10.toFixed(3)} | ${s.precision3.toFixed(3)} | ${grade0Cell(m)} | ${s.spamFirst} |\n`,
            );
          }
        }
      }
    }
  } finally {
    await tuning.close();
  }
}

runMain('tune-semantic', main);
