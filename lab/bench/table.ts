/**
 * The one table of a search or ranking change (issues 22 and 23; README "Benchmarks"): relevance
 * on the judged sets and Elasticsearch and gateway CPU per ranked search against the fixed
 * reference query, from one command. It runs `bench-relevance` (each judged set on a scratch index
 * of its own) and `bench-search --alias` on a kept catalog, and prints one row per code.
 *
 * With `--against REF` the code of REF (a commit, a branch) is measured too, from a git worktree
 * (under .cache/bench-table/, removed at the end) that shares this checkout's node_modules and
 * embedding models: the cost runs alternate between
 * the two codes on the same index (REF first), so the machine's drift falls on both, and each row
 * lists every run beside the median: the spread is the noise a difference must beat.
 *
 *   npm run bench -- table --alias ALIAS [--against REF] [--pairs 2] [--rounds 1] [--set both|all] [--split-cores] [--live [--warm-up S]]
 *
 * `--split-cores`: the cost runs with Elasticsearch on half the cores and the rest (the gateway, the
 * load generator) on the other half (lab/lib/cpuSplit.ts), for every code alike.
 * `--live`: each code's cost runs write the catalog while they measure (bench-search --live: the
 * live shape); both codes must have the mode.
 * `--shipped-tunables`: each code's cost runs read the ranking tunables that code ships (`_meta.ranking`
 * of its mappings/listings.json, written to the kept catalog before its runs; the catalog's own put
 * back at the end). Without it both codes read the catalog's stored tunables, as a deployment that
 * upgrades does, so a change of a shipped default shows in relevance only. (The BM25 similarity
 * stays the catalog's: changing it closes the index.)
 * ALIAS: a catalog kept by `bench-search --keep` (load one with `npm run bench -- search --alias
 * NAME --count 100000 --approximate-embeddings --keep --rounds 1`). Both codes must accept its
 * mapping. `--set` as bench-relevance's (the sealed held-out set gives aggregates only).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createElasticsearchClient } from '../../src/door.js';
import { RankingTunablesIndex } from '../../src/door.js';
import { splitCores, type CoreSplit } from '../lib/cpuSplit.js';
import { fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { parseCost, parseRelevance, tableHeader, tableRow, type Cost, type Relevance } from '../lib/benchTable.js';
import { benchFile, head, removeWorktree, worktreeOf, type Code } from '../lib/codeWorktree.js';

const USAGE = 'usage: bench-table --alias ALIAS [--against REF] [--pairs N] [--rounds N] [--set both|all|...] [--split-cores] [--shipped-tunables] [--live [--warm-up S]]';
/** Runs one of a checkout's benchmarks with tsx; its progress goes to stderr, its report is returned. */
function runScript(code: Code, name: string, args: string[]): Promise<string> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, ['--import', 'tsx', benchFile(code, name), ...args], {
      cwd: code.dir,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', failed);
    child.on('exit', (status) => (status === 0 ? done(out) : failed(new Error(`${code.label}: ${name} exited with ${status}\n${out.slice(-2000)}`))));
  });
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        against: { type: 'string' },
        pairs: { type: 'string', default: '2' },
        rounds: { type: 'string', default: '1' },
        set: { type: 'string', default: 'both' },
        'split-cores': { type: 'boolean', default: false },
        'shipped-tunables': { type: 'boolean', default: false },
        live: { type: 'boolean', default: false },
        'warm-up': { type: 'string' },
      },
    },
    USAGE,
  );
  if (!values.alias) fail(`--alias names the kept catalog the cost is measured on\n${USAGE}`);
  const pairs = numberOption('pairs', values.pairs, { min: 1, max: 20 });
  const rounds = numberOption('rounds', values.rounds, { min: 1, max: 20 });
  // bench-search would load a new catalog under a name it does not find: this command only measures.
  const elasticsearch = createElasticsearchClient(loadConfigOrFail().elasticsearchUrl);
  const found = await elasticsearch.indices.existsAlias({ name: values.alias });
  if (!found) fail(`no alias ${values.alias} on Elasticsearch: keep a catalog first (npm run bench -- search --alias ${values.alias} --count 100000 --approximate-embeddings --keep --rounds 1)`);
  const codes: Code[] = [...(values.against ? [worktreeOf(values.against)] : []), head()];
  try {
    const tunables = values['shipped-tunables'] ? await shippedTunables(new RankingTunablesIndex(elasticsearch, values.alias)) : undefined;
    try {
      // --live: each code's bench-search writes while it measures (its own --live; a code from before it has none).
      const live = values.live ? ['--live', ...(values['warm-up'] !== undefined ? ['--warm-up', values['warm-up']] : [])] : [];
      await measure(codes, values.alias, values.set, pairs, rounds, values['split-cores'] ? () => splitCores(elasticsearch) : undefined, tunables?.use, live);
    } finally {
      await tunables?.restore();
    }
  } finally {
    for (const code of codes) if (code.worktree) removeWorktree(code.dir);
    await elasticsearch.close();
  }
}

/** A code's shipped ranking tunables: `_meta.ranking` of its mappings/listings.json. */
function shippedRankingOf(code: Code): unknown {
  const mapping = JSON.parse(readFileSync(join(code.dir, 'mappings', 'listings.json'), 'utf8')) as { mappings?: { _meta?: { ranking?: unknown } } };
  const ranking = mapping.mappings?._meta?.ranking;
  if (ranking === undefined) fail(`${code.label}: mappings/listings.json has no _meta.ranking`);
  return ranking;
}

/** `use(code)` writes that code's shipped ranking into the catalog's `_meta`; `restore` puts the catalog's own back. */
async function shippedTunables(store: RankingTunablesIndex): Promise<{ use: (code: Code) => Promise<void>; restore: () => Promise<void> }> {
  const stored = await store.read();
  return {
    use: (code) => store.writeRankingMeta(stored.index, { ...stored.meta, ranking: shippedRankingOf(code) }),
    restore: () => store.writeRankingMeta(stored.index, stored.meta),
  };
}

/**
 * `split`: pins Elasticsearch and this process for the cost runs (the bench-search children inherit its cores).
 * `useTunables`: run before each code's cost run (`--shipped-tunables`).
 */
async function measure(
  codes: Code[], alias: string, set: string, pairs: number, rounds: number,
  split?: () => Promise<CoreSplit>, useTunables?: (code: Code) => Promise<void>, searchArgs: string[] = [],
): Promise<void> {
  const relevance = new Map<Code, Relevance>();
  for (const code of codes) {
    process.stderr.write(`\n[bench-table] relevance, ${code.label}\n`);
    relevance.set(code, parseRelevance(await runScript(code, 'relevance', ['--set', set])));
  }
  const costs = new Map<Code, Cost[]>(codes.map((c) => [c, []]));
  const cores = await split?.();
  try {
    for (let pair = 1; pair <= pairs; pair++) {
      for (const code of codes) {
        process.stderr.write(`\n[bench-table] cost ${pair}/${pairs}, ${code.label}\n`);
        await useTunables?.(code);
        const report = await runScript(code, 'search', ['--alias', alias, '--rounds', String(rounds), ...searchArgs]);
        // Each run's own report too (segments, write rate, net figures, paging): the table keeps only its costs.
        process.stderr.write(`\n[bench-table] cost ${pair}/${pairs}, ${code.label}: bench-search report\n${report}\n`);
        costs.get(code)!.push(parseCost(report));
      }
    }
  } finally {
    cores?.restore();
  }

  const first = relevance.get(codes[0]!)!;
  process.stdout.write(
    [
      '',
      `catalog ${alias}; relevance: bench-relevance --set ${set} once per code; cost: bench-search, ${pairs} run(s) of ${rounds} round(s) per code, ` +
        `alternating${codes.length > 1 ? ` (${codes[0]!.label} first)` : ''}` +
        `${useTunables ? ", each code's shipped tunables" : "; the catalog's stored tunables"}; load average ${loadavg()[0]!.toFixed(2)} after` +
        (cores ? `; ${cores.description}` : ''),
      '',
      tableHeader(first),
      ...codes.map((code) => tableRow(code.label, relevance.get(code)!, costs.get(code)!)),
      '',
    ].join('\n'),
  );
}

runMain('bench-table', main);
