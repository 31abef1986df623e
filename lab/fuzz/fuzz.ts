/**
 * Bounded fuzzing of the running service (README "Fuzzing"):
 *   npm run bench -- fuzz [-- --requests 5000] [--payments 300] [--seed N] [--concurrency 8] [--listings 2000]
 * 1. Starts the service as a child process on a scratch deployment seeded with the demo catalog and
 *    sends `--requests` hostile requests (lab/fuzz/hostileRequests.ts) to every route (origins
 *    whose manifests are 500 KB of junk among them), then `--payments` valid signed settlements a
 *    hostile payer would send (lab/fuzz/paidTraffic.ts: forged claims on the demo listings, hostile
 *    URLs, value going back and forth); reports the answers by status, every 5xx, unanswered
 *    requests, crashes, and whether any listing that existed before changed or vanished.
 * 2. Every key the run left in Redis against its family's bound (lab/fuzz/storedBounds.ts, issue 43).
 * 3. Property: every listing the validator accepts is accepted by Elasticsearch (`--listings`
 *    generated listings with hostile text, written straight to a scratch index).
 * Exit code 1 when a 5xx, a crash, a changed listing, a store over its bound or a refused valid
 * listing was seen.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { buildListingDocument } from '../../src/door.js';
import { importListings, parseListingFile } from '../../src/door.js';
import { validateListingInput } from '../../src/door.js';
import type { ListingInput } from '../../src/door.js';
import { SellerTokenStore } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import type { ElasticsearchClient } from '../../src/door.js';
import { ensureListingIndex } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';
import { chainSettlementEnv, startDevChain } from '../lib/chainSettlements.js';
import { drainQueue, openCatalogSession } from '../../src/door.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { hostileRequest } from './hostileRequests.js';
import { indexableListing } from './fuzzListings.js';
import { rawExchange, type RawRequest } from '../lib/rawHttp.js';
import { SellerTokenRecords } from '../../src/door.js';
import { paidTraffic } from './paidTraffic.js';
import { measureStores } from './storedBounds.js';

/** A site whose /.well-known/x402 is 500 KB of `items: [1,1,...]` (issue 43: it stored 21 MB). */
async function junkSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const junk = JSON.stringify({ x402Version: 2, items: Array.from({ length: 250_000 }, () => 1) });
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/x402') res.writeHead(200, { 'Content-Type': 'application/json' }).end(junk);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const USAGE = 'usage: fuzz [--requests N] [--payments N] [--seed N] [--concurrency N] [--listings N]';

/**
 * The stored listings, without the vector, its text hash and its model's name: the service's own embedding worker
 * writes those in the background (src/semantic/embeddingWorker.ts) while the requests run, which is
 * no caller changing a listing. Every field a request could reach is compared.
 */
async function snapshot(client: ElasticsearchClient, alias: string): Promise<Map<string, string>> {
  await client.indices.refresh({ index: alias });
  const response = await client.search<Record<string, unknown>>({
    index: alias,
    size: 10_000,
    sort: [{ id: 'asc' }],
    query: { match_all: {} },
    _source_excludes: ['embedding', 'embeddedTextHash', 'embeddingModel'],
  });
  return new Map(response.hits.hits.map((hit) => [hit._id!, JSON.stringify(hit._source)]));
}

async function sendAll(port: number, requests: RawRequest[], concurrency: number, alive: () => boolean) {
  const statuses = new Map<number, number>();
  const serverErrors: Array<{ request: string; status: number; excerpt: string }> = [];
  let unanswered = 0;
  let next = 0;
  const worker = async () => {
    while (next < requests.length && alive()) {
      const request = requests[next++]!;
      const answer = await rawExchange(port, request, 10_000);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 0) unanswered++;
      if (answer.status >= 500) serverErrors.push({ request: `${request.method} ${request.target.slice(0, 120)}`, status: answer.status, excerpt: answer.excerpt });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)), serverErrors, unanswered };
}

/** Property 2: what the validator accepts, Elasticsearch indexes. */
async function indexability(client: ElasticsearchClient, base: string, count: number, seed: number) {
  const alias = `${base}-prop`;
  await ensureListingIndex(client, alias, `${alias}-v1`);
  const inputs = fc.sample(indexableListing, { numRuns: count, seed });
  const valid = inputs.filter((input) => validateListingInput(input).length === 0) as ListingInput[];
  const docs = valid.map((input) => buildListingDocument(input, { source: 'import' }, new Date()));
  const unique = [...new Map(docs.map((d) => [d.id, d])).values()];
  if (unique.length === 0) return { generated: inputs.length, acceptedByValidator: 0, indexed: 0, refusedByElasticsearch: [] };
  const response = await client.bulk({ index: alias, require_alias: true, operations: unique.flatMap((doc) => [{ index: { _id: doc.id } }, doc]) });
  const refused = (response.items as Array<Record<string, { error?: { type?: string; reason?: string } }>>)
    .map((item) => Object.values(item)[0]!.error)
    .filter((e): e is { type?: string; reason?: string } => e !== undefined);
  return { generated: inputs.length, acceptedByValidator: valid.length, indexed: unique.length - refused.length, refusedByElasticsearch: refused.slice(0, 5) };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { requests: { type: 'string' }, payments: { type: 'string' }, seed: { type: 'string' }, concurrency: { type: 'string' }, listings: { type: 'string' } } },
    USAGE,
  );
  const requestCount = numberOption('requests', values.requests ?? '5000', { min: 1, max: 200_000 });
  const seed = numberOption('seed', values.seed ?? String(Date.now() % 1_000_000), { min: 0 });
  const concurrency = numberOption('concurrency', values.concurrency ?? '8', { min: 1, max: 64 });
  const listingCount = numberOption('listings', values.listings ?? '2000', { min: 0, max: 100_000 });
  const paymentCount = numberOption('payments', values.payments ?? '300', { min: 0, max: 20_000 });
  const base = `fuzz-${Date.now().toString(36)}`;
  const env = { ...process.env, LISTINGS_ALIAS: `${base}-listings`, LISTINGS_INDEX: `${base}-listings-v1`, REDIS_PREFIX: `fuzz:${base}:` };

  const session = await openCatalogSession(env);
  const names = { listingsIndex: `${base}-`, redisPrefix: env.REDIS_PREFIX };
  let child: Awaited<ReturnType<typeof startServiceProcess>>['child'] | undefined;
  let failed = false;
  const site = await junkSite();
  try {
    const demo = readFileSync(fileURLToPath(new URL('../../demo/catalog.json', import.meta.url)), 'utf8');
    await importListings(session.catalog.writer, parseListingFile(demo), { source: 'demo' });
    await drainQueue(session);
    const { secret } = await new SellerTokenStore(new SellerTokenRecords(session.redis, env.REDIS_PREFIX)).issue(['fuzz-token.invalid'], 'fuzz');
    const before = await snapshot(session.elasticsearch, env.LISTINGS_ALIAS);

    startDevChain();
    const service = await startServiceProcess({
      ...env,
      RATE_LIMIT_ANNOUNCE: 'off',
      RATE_LIMIT_PUBLISH: 'off',
      RATE_LIMIT_PUBLISH_TOKEN: 'off',
      // Only the junk site: every other hostile URL is refused by the address rules.
      PROBE_ALLOW: site.origin.replace('http://', ''),
      PROBE_TIMEOUT_MS: '500',
      // The signed payments settle on the dev chain (started here when no node answers at CHAIN_RPC_URL).
      ...chainSettlementEnv(),
    });
    child = service.child;
    let exit: string | undefined;
    child.once('exit', (code, signal) => (exit = `exited with ${code ?? signal}`));
    const port = Number(new URL(service.url).port);

    const hostile = fc.sample(hostileRequest(secret, [site.origin]), { numRuns: requestCount, seed });
    const listedUrls = [...before.values()].map((source) => (JSON.parse(source) as { resource: string; type: string })).filter((l) => l.type === 'http' && !l.resource.includes('{')).map((l) => l.resource);
    const paid = await paidTraffic(listedUrls, paymentCount, seed);
    const requests = [...hostile, ...paid];
    const started = Date.now();
    const sent = await sendAll(port, requests, concurrency, () => exit === undefined);
    const seconds = (Date.now() - started) / 1000;
    const healthy = exit === undefined && (await rawExchange(port, { method: 'GET', target: '/healthz', headers: [] }, 5000)).status === 200;

    await drainQueue(session, { timeoutMs: 60_000 });
    const after = await snapshot(session.elasticsearch, env.LISTINGS_ALIAS);
    const changed = [...before].filter(([id, source]) => after.get(id) !== source).map(([id]) => id);
    const added = [...after.keys()].filter((id) => !before.has(id));
    const stored = await measureStores(session.redis, env.REDIS_PREFIX);
    const queue = await session.catalog.queue.stats();
    const property = listingCount > 0 ? await indexability(session.elasticsearch, base, listingCount, seed) : undefined;

    const report = {
      seed,
      requests: requests.length,
      hostileRequests: hostile.length,
      signedPayments: paid.length,
      seconds,
      requestsPerSecond: Math.round(requests.length / seconds),
      statuses: sent.statuses,
      serverErrors: sent.serverErrors.length,
      serverErrorExamples: sent.serverErrors.slice(0, 10),
      unanswered: sent.unanswered,
      crashes: exit ? 1 : 0,
      crash: exit,
      healthyAfter: healthy,
      catalog: { listingsBefore: before.size, preExistingChangedOrRemoved: changed.length, changedIds: changed.slice(0, 10), added: added.length, addedSources: added.map((id) => JSON.parse(after.get(id)!).source as string) },
      stores: { ...stored, writeQueueAfter: queue },
      indexability: property,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const unbounded = stored.unknown.length + stored.overBound.length + stored.neverExpires.length > 0 || queue.depth > 0;
    failed = sent.serverErrors.length > 0 || exit !== undefined || !healthy || changed.length > 0 || unbounded || (property?.refusedByElasticsearch.length ?? 0) > 0;
  } finally {
    if (child && child.exitCode === null) {
      const stopped = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await stopped;
    }
    await dropDeploymentData(session.elasticsearch, session.redis, names);
    await session.close();
    await site.close();
  }
  if (failed) throw new Error('found 5xx answers, a crash, a changed listing, a store over its bound or a valid listing Elasticsearch refused (see the report)');
}

runMain('fuzz', main);
