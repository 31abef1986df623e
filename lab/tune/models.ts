/**
 * Chooses the embedding model for task queries (issue 45, item 3) on the task set's TUNING half
 * only (lab/eval/tasks/tuning.json; the held-out half cannot be loaded here): every listing of the
 * set and every tuning query embedded by each model of the table, then the listings ranked by
 * cosine alone (no words, no factors: what the model itself brings), as the whole query and, with
 * `--needs`, need by need (search/taskNeeds.ts splits the query; the first five are the needs'
 * nearest taken in turn). Printed: Recall@5, completeness@5, nDCG@5, and the CPU of one query and
 * of one listing (process.cpuUsage around the model call, one thread, as the service runs it).
 *
 *   npm run bench -- tune:models [-- --models all|NAME,NAME] [--needs]
 *
 * Each model must be unpacked first (`EMBEDDING_MODEL=NAME npm run services -- model`); one that
 * is not is skipped with a line saying so.
 */
import { createLogger, EMBEDDING_MODEL_NAMES, fail, listingText, loadConfigOrFail, OnnxEmbedder, parseCommandLine, runMain, splitNeeds, type EmbeddedFields } from '../../src/door.js';
import { loadTaskSet, type JudgedQuery } from '../lib/judgedSet.js';
import { ndcgAt, needRecallAt } from '../lib/relevanceMetrics.js';
import { percentile } from '../lib/latency.js';

const USAGE = 'usage: tune-models [--models all|NAME,NAME] [--needs]';

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Resources by cosine to the vector, nearest first. */
const nearest = (vector: Float32Array, listings: Array<{ resource: string; vector: Float32Array }>) =>
  listings.map((l) => ({ resource: l.resource, score: dot(vector, l.vector) })).sort((a, b) => b.score - a.score).map((l) => l.resource);

/** The needs' nearest taken in turn (need 1's best, need 2's best, ..., then the second of each), without repeats. */
function interleaved(lists: string[][], k: number): string[] {
  const out: string[] = [];
  for (let rank = 0; out.length < k && rank < 50; rank++) {
    for (const list of lists) {
      const resource = list[rank];
      if (resource !== undefined && !out.includes(resource) && out.length < k) out.push(resource);
    }
  }
  return out;
}

interface ModelRow {
  model: string;
  recall5: number;
  complete5: number;
  ndcg5: number;
  queryMsP50: number;
  queryMsP95: number;
  listingMs: number;
}

async function measure(model: string, dir: string, queries: JudgedQuery[], texts: Array<{ resource: string; text: string }>, byNeed: boolean): Promise<ModelRow | undefined> {
  const embedder = new OnnxEmbedder(model, dir, createLogger('error'));
  if (!(await embedder.embed(['warm up'], 'query'))) return undefined;
  const listingStarted = process.cpuUsage();
  const listings: Array<{ resource: string; vector: Float32Array }> = [];
  for (const { resource, text } of texts) listings.push({ resource, vector: (await embedder.embed([text], 'passage'))![0]! });
  const listingMs = cpuMs(listingStarted) / texts.length;
  const queryMs: number[] = [];
  let recall = 0;
  let complete = 0;
  let ndcg = 0;
  for (const query of queries) {
    const parts = byNeed ? splitNeeds(query.q) : [];
    const asked = parts.length > 1 ? parts : [query.q];
    const started = process.cpuUsage();
    const vectors = [];
    for (const text of asked) vectors.push((await embedder.embed([text], 'query'))![0]!);
    queryMs.push(cpuMs(started));
    const top = vectors.length > 1 ? interleaved(vectors.map((v) => nearest(v, listings)), 5) : nearest(vectors[0]!, listings).slice(0, 5);
    const needs = query.needs ?? [];
    const r = needRecallAt(5, top, needs);
    recall += r;
    complete += r === 1 ? 1 : 0;
    ndcg += ndcgAt(5, top.map((resource) => query.judgments[resource] ?? 0), Object.values(query.judgments));
  }
  queryMs.sort((a, b) => a - b);
  const n = queries.length;
  return { model, recall5: recall / n, complete5: complete / n, ndcg5: ndcg / n, queryMsP50: percentile(queryMs, 50), queryMsP95: percentile(queryMs, 95), listingMs };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { models: { type: 'string', default: 'all' }, needs: { type: 'boolean', default: false } } }, USAGE);
  const models = values.models === 'all' ? EMBEDDING_MODEL_NAMES : values.models.split(',').map((m) => m.trim());
  for (const model of models) if (!EMBEDDING_MODEL_NAMES.includes(model)) fail(`unknown model ${model} (known: ${EMBEDDING_MODEL_NAMES.join(', ')})\n${USAGE}`);
  const config = loadConfigOrFail();
  const set = loadTaskSet('tuning');
  const texts = set.entries.flatMap((entry) => ('value' in entry ? [{ resource: (entry.value as { resource: string }).resource, text: listingText(entry.value as EmbeddedFields) }] : []));
  process.stdout.write(
    `\nembedding models on the task set's tuning half (${set.queries.length} queries, ${texts.length} listings), cosine alone, ${values.needs ? 'need by need (split, nearest of each need in turn)' : 'the whole query'}\n\n` +
      '| model | Recall@5 | completeness@5 | nDCG@5 | CPU ms per query p50 / p95 | CPU ms per listing |\n|---|---|---|---|---|---|\n',
  );
  for (const model of models) {
    const dir = config.embeddingModel === model ? config.embeddingModelDir : `.cache/models/${model}`;
    const row = await measure(model, dir, set.queries, texts, values.needs);
    if (!row) {
      process.stdout.write(`| ${model} | not installed (EMBEDDING_MODEL=${model} npm run services -- model) | | | | |\n`);
      continue;
    }
    process.stdout.write(
      `| ${model} | ${row.recall5.toFixed(3)} | ${row.complete5.toFixed(3)} | ${row.ndcg5.toFixed(3)} | ${row.queryMsP50.toFixed(1)} / ${row.queryMsP95.toFixed(1)} | ${row.listingMs.toFixed(1)} |\n`,
    );
  }
}

runMain('tune-models', main);
