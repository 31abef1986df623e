/**
 * The tuning sets (eval/relevance and eval/tuning2), each imported and embedded once into a scratch
 * deployment of its own, measured together: a tunable is set on every deployment, and a measure is
 * each set's summary and the pooled one (every query of both sets counted once). The tuning scripts
 * choose on the pooled figure, so a choice has to hold on two samples written by different hands;
 * they cannot load a held-out set.
 */
import { openJudgedDeployment, type JudgedDeployment } from './judgedDeployment.js';
import { loadJudgedSet, TUNING_SET_DIRS, type JudgedSet } from './judgedSet.js';
import { summarize, type QueryOutcome, type RunSummary } from './relevanceMetrics.js';

export interface TuningSet {
  /** The set's folder under eval/ (`relevance`, `tuning2`). */
  name: string;
  set: JudgedSet;
  deployment: JudgedDeployment;
}

export interface TuningMeasure {
  perSet: RunSummary[];
  pooled: RunSummary;
}

export interface TuningSets {
  sets: TuningSet[];
  /** `eval/relevance (330 listings, 92 queries) + eval/tuning2 (...)`. */
  description: string;
  /** One ranking tunable on every set's deployment (as `npm run ranking -- set`). */
  setTunable(key: string, value: string): Promise<void>;
  /** Every query of every set through the full ranking. */
  measure(): Promise<TuningMeasure>;
  close(): Promise<void>;
}

const folderName = (dir: string) => dir.split('/').filter(Boolean).pop()!;

/** Pools the outcomes of several sets: each query counts once, whichever set it belongs to. */
function pooledSummary(outcomesPerSet: QueryOutcome[][]): TuningMeasure {
  return { perSet: outcomesPerSet.map(summarize), pooled: summarize(outcomesPerSet.flat()) };
}

export async function openTuningSets(progress: (what: string) => void): Promise<TuningSets> {
  const sets: TuningSet[] = [];
  try {
    for (const dir of TUNING_SET_DIRS) {
      const name = folderName(dir);
      const set = loadJudgedSet(dir);
      const started = Date.now();
      const deployment = await openJudgedDeployment(set, (what) => progress(`eval/${name}, ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`));
      sets.push({ name, set, deployment });
    }
  } catch (err) {
    await Promise.all(sets.map((s) => s.deployment.close()));
    throw err;
  }
  return {
    sets,
    description: sets.map((s) => `eval/${s.name} (${s.deployment.listings} listings, ${s.set.queries.length} queries)`).join(' + '),
    async setTunable(key, value) {
      for (const s of sets) await s.deployment.setTunable(key, value);
    },
    async measure() {
      const outcomes: QueryOutcome[][] = [];
      for (const s of sets) outcomes.push((await s.deployment.rankAll()).map((run) => run.outcome));
      return pooledSummary(outcomes);
    },
    async close() {
      await Promise.all(sets.map((s) => s.deployment.close()));
    },
  };
}

/** `0.912 (0.930 / 0.887)`: pooled nDCG@10, then each set's. */
export const ndcgCell = (m: TuningMeasure) => `${m.pooled.ndcg10.toFixed(3)} (${m.perSet.map((s) => s.ndcg10.toFixed(3)).join(' / ')})`;
/** `3 (1 / 2)`: grade-0 first, pooled then each set's. */
export const grade0Cell = (m: TuningMeasure) => `${m.pooled.grade0First} (${m.perSet.map((s) => s.grade0First).join(' / ')})`;
