/**
 * A grid over any ranking tunables on the tuning sets ONLY (eval/relevance and eval/tuning2,
 * lab/lib/tuningSets.ts): every combination of the `--grid` values is set on the scratch
 * indices (as `npm run ranking -- set KEY VALUE` would) and every query of both sets is ranked by
 * the full ranking; nDCG@10 and grade 0 first are printed pooled (every query once) and per set,
 * with the shipped values first. The held-out sets are never tuned on, so this command cannot load
 * them: check a choice on every set afterwards with `npm run bench -- relevance --set all --tunable KEY=VALUE`.
 *
 *   npm run bench -- tune:tunables --grid typos.weight=0.2,0.5 --grid fields.phrase_text=1,2
 */
import { fail, parseCommandLine, runMain } from '../../src/door.js';
import { grade0Cell, ndcgCell, openTuningSets } from '../lib/tuningSets.js';

const USAGE = 'usage: tune-tunables --grid KEY=VALUE,VALUE,... [--grid KEY=VALUE,...]';

interface Axis {
  key: string;
  values: string[];
}

function parseAxis(text: string): Axis {
  const at = text.indexOf('=');
  const values = text.slice(at + 1).split(',').map((v) => v.trim()).filter(Boolean);
  if (at <= 0 || values.length === 0) fail(`--grid takes KEY=VALUE,VALUE,... (e.g. typos.weight=0.2,0.5), got ${text}\n${USAGE}`);
  return { key: text.slice(0, at), values };
}

/** Every combination of the axes' values, the first axis slowest. */
function combinations(axes: Axis[]): Array<Array<[string, string]>> {
  return axes.reduce<Array<Array<[string, string]>>>(
    (partial, axis) => partial.flatMap((prefix) => axis.values.map((value) => [...prefix, [axis.key, value] as [string, string]])),
    [[]],
  );
}

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { grid: { type: 'string', multiple: true } } }, USAGE);
  const axes = (values.grid ?? []).map(parseAxis);
  if (axes.length === 0) fail(`at least one --grid\n${USAGE}`);
  const started = Date.now();
  const tuning = await openTuningSets((what) => process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s, ${what}\n`));
  try {
    const shipped = await tuning.measure();
    process.stdout.write(
      `\ntunables on the tuning sets (${tuning.description}), full ranking; nDCG@10 and grade 0 first pooled (per set)\n\n` +
        `| ${axes.map((a) => a.key).join(' | ')} | nDCG@10 | change | first result graded 0 | spam first |\n|${axes.map(() => '---|').join('')}---|---|---|---|\n` +
        `| ${axes.map(() => 'shipped').join(' | ')} | ${ndcgCell(shipped)} | | ${grade0Cell(shipped)} | ${shipped.pooled.spamFirst} |\n`,
    );
    for (const combination of combinations(axes)) {
      for (const [key, value] of combination) await tuning.setTunable(key, value);
      const m = await tuning.measure();
      process.stdout.write(
        `| ${combination.map(([, value]) => value).join(' | ')} | ${ndcgCell(m)} | ${(m.pooled.ndcg10 - shipped.pooled.ndcg10).toFixed(3)} | ${grade0Cell(m)} | ${m.pooled.spamFirst} |\n`,
      );
    }
  } finally {
    await tuning.close();
  }
}

runMain('tune-tunables', main);
