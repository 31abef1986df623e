/**
 * Publish benchmark, everything on 127.0.0.1, over the full HTTP service:
 *  1. publish-to-searchable: N MCP tools (default 200) published at a steady rate with a seller
 *     token; latency from sending POST /discovery/publish until GET /mcp/tools?q=<its unique word>
 *     returns the listing. Target p99 < 2 s.
 *  2. unpublish-to-gone: each is then unpublished (DELETE /discovery/publish/{id}); latency until it
 *     is absent from /mcp/tools. Target: within 60 s (DECISIONS), measured as p99.
 *   npx tsx lab/bench/publish.ts [--count 200] [--rate 20]
 * Uses its own index and Redis prefix (bench-publish-*), deleted at the end.
 */
import { startServiceInProcess } from '../lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { latencySummary } from '../lib/latency.js';

const { values } = parseCommandLine(
  { options: { count: { type: 'string', default: '200' }, rate: { type: 'string', default: '20' } } },
  'usage: bench-publish [--count 1..5000] [--rate 1..500 per second]',
);
const count = numberOption('count', values.count, { max: 5000 });
const rate = numberOption('rate', values.rate, { min: 1, max: 500, integer: false });
const POLL_MS = 25;
const GIVE_UP_MS = 60_000;

function stats(latencies: number[], failures: number) {
  return { measured: latencies.length, notWithin60s: failures, ...latencySummary(latencies) };
}

async function main(): Promise<void> {
  const tag = Date.now().toString(36);
  const service = await startServiceInProcess({
    ...process.env,
    LISTINGS_ALIAS: `bench-publish-${tag}`,
    LISTINGS_INDEX: `bench-publish-${tag}-v1`,
    REDIS_PREFIX: `bench-publish:${tag}:`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PUBLISH: 'off',
    RATE_LIMIT_PUBLISH_TOKEN: 'off',
  });
  const { container, url: base } = service;
  const { secret } = await container.publishing.tokens.issue(['bench.tools.test'], 'bench');
  const auth = { Authorization: `Bearer ${secret}` };

  // One poller for every pending listing (a query naming many of their unique words), so that
  // measuring does not load the service with hundreds of concurrent searches.
  interface Watch {
    word: string;
    id: string;
    started: number;
    wantPresent: boolean;
    done: (elapsed: number | undefined) => void;
  }
  const watches = new Set<Watch>();
  let polling = false;
  let pollErrors = 0;
  const poll = async () => {
    polling = true;
    try {
      while (watches.size > 0) {
        // /mcp/tools caps q at 512 characters; the polled ones go to the back of the line.
        const batch: Watch[] = [];
        let length = 0;
        for (const w of watches) {
          if (length + w.word.length + 1 > 500) break;
          batch.push(w);
          length += w.word.length + 1;
        }
        for (const w of batch) {
          watches.delete(w);
          watches.add(w);
        }
        let found: Set<string> | undefined;
        try {
          const res = await fetch(`${base}/mcp/tools?q=${encodeURIComponent(batch.map((w) => w.word).join(' '))}&limit=100`);
          if (res.ok) found = new Set(((await res.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id));
          else {
            pollErrors += 1;
            if (pollErrors === 1) process.stderr.write(`a poll failed: ${res.status} ${(await res.text()).slice(0, 300)}\n`);
          }
        } catch {
          pollErrors += 1;
        }
        const now = performance.now();
        for (const w of batch) {
          if (found && found.has(w.id) === w.wantPresent) {
            watches.delete(w);
            w.done(now - w.started);
          } else if (now - w.started > GIVE_UP_MS) {
            watches.delete(w);
            w.done(undefined);
          }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      polling = false;
    }
  };
  /** Resolves with the time since `started` at which the listing was (or no longer was) searchable. */
  const pollUntil = (word: string, id: string, wantPresent: boolean, started: number) =>
    new Promise<number | undefined>((done) => {
      watches.add({ word, id, started, wantPresent, done });
      if (!polling) void poll();
    });

  const steady = async (task: (i: number) => Promise<void>) => {
    const pending: Array<Promise<void>> = [];
    for (let i = 0; i < count; i += 1) {
      pending.push(task(i));
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await Promise.all(pending);
  };

  try {
    process.stderr.write(`publish-to-searchable: ${count} tools at ${rate}/s ...\n`);
    const ids: string[] = new Array<string>(count);
    const publishLatencies: number[] = [];
    const visible: number[] = [];
    let notVisible = 0;
    const statuses: Record<string, number> = {};
    await steady(async (i) => {
      const word = `benchtool${tag}x${i}`;
      const started = performance.now();
      const res = await fetch(`${base}/discovery/publish`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...auth },
        body: JSON.stringify({
          type: 'mcp',
          resource: `mcp://bench.tools.test/${word}`,
          name: word,
          description: `Benchmark tool number ${i}.`,
          inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          payment: { scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: String(1000 + i) },
        }),
      });
      publishLatencies.push(performance.now() - started);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const { id } = (await res.json()) as { id: string };
      ids[i] = id;
      const elapsed = await pollUntil(word, id, true, started);
      if (elapsed === undefined) notVisible += 1;
      else visible.push(elapsed);
    });

    process.stderr.write(`unpublish-to-gone: ${count} tools at ${rate}/s ...\n`);
    const gone: number[] = [];
    let notGone = 0;
    await steady(async (i) => {
      const id = ids[i]!;
      const started = performance.now();
      await fetch(`${base}/discovery/publish/${id}`, { method: 'DELETE', headers: auth });
      const elapsed = await pollUntil(`benchtool${tag}x${i}`, id, false, started);
      if (elapsed === undefined) notGone += 1;
      else gone.push(elapsed);
    });

    process.stdout.write(
      `${JSON.stringify(
        {
          tools: count,
          ratePerSecond: rate,
          publishResponses: statuses,
          publishRequest: stats(publishLatencies, 0),
          publishToSearchable: stats(visible, notVisible),
          unpublishToGone: stats(gone, notGone),
          failedPolls: pollErrors,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await service.close();
  }
}

runMain('bench-publish', main);
