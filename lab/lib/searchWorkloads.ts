/**
 * The workloads of the search benchmark (lab/bench/search.ts): the reference query, ranked search,
 * explain=1 and /discovery/resources, each as the very request bodies the service sends
 * Elasticsearch (built by its own planner and query builder) and as the gateway requests that
 * cause them; and the alternating rounds that measure them.
 */
import type { buildCatalogSearch, ReadEndpoint, ReadRequest } from '../../src/door.js';
import { parseReadRequest } from '../../src/door.js';
import { directSearchRequest, measure, median, type CpuProbe, type Measured, type Target } from './httpLoad.js';
import { REFERENCE_PARAMS, referenceSearchBody } from './referenceQuery.js';
import { resourcesMix, searchMix } from './searchQueryMix.js';

type CatalogSearch = ReturnType<typeof buildCatalogSearch>['search'];
type Json = Record<string, unknown>;
type Sent = { params: Record<string, unknown>; body: Json };

export interface Workload {
  label: string;
  direct: Target;
  gateway?: Target;
}

/** Each workload's Elasticsearch requests (bodies and URL parameters) and gateway paths, whichever index they go to. */
export interface PreparedWorkloads {
  workloads: Array<{ label: string; direct: Sent[]; gatewayPaths?: string[] }>;
  /** The mix's ranked searches as validated reads (the reference query is built from each). */
  searches: ReadRequest[];
}

const parse = (endpoint: ReadEndpoint, query: string) => parseReadRequest(endpoint, Object.fromEntries(new URLSearchParams(query)));
/** The URL parameters of store/elasticsearch/listingSearch.ts scoredIds. */
const SCORED_IDS = { filter_path: 'hits.hits.fields.id,hits.hits._score,hits.hits.matched_queries' };

/** Query strings measured through the gateway only, as a workload of their own, beside the reference query of the same texts. */
export interface GatewayMix {
  label: string;
  queries: string[];
}

/** `gatewayMixes`: e.g. the task set's texts, or queries that never repeat. */
export async function prepareWorkloads(search: CatalogSearch, gatewayMixes: GatewayMix[] = []): Promise<PreparedWorkloads> {
  /** The kNN searches of their own the service sends before a ranked search (semantic.fusion normalised or rrf), by workload. */
  const nearest = new Map<string, Sent[]>();
  const built = async (endpoint: ReadEndpoint, query: string, label: string): Promise<Sent> => {
    const { body, params, nearest: knn } = await search.buildRequest(parse(endpoint, query));
    if (knn) nearest.set(label, [...(nearest.get(label) ?? []), { params: SCORED_IDS, body: knn }]);
    return { params, body };
  };
  const pair = async (label: string, endpoint: ReadEndpoint, path: string, mix: string[]) => ({
    label,
    direct: await Promise.all(mix.map((q) => built(endpoint, q, label))),
    gatewayPaths: mix.map((q) => `${path}?${q}`),
  });
  const searches = searchMix().map((q) => parse('search', q));
  const workloads: PreparedWorkloads['workloads'] = [
    { label: 'reference query', direct: searches.map((request) => ({ params: REFERENCE_PARAMS, body: referenceSearchBody(request) })) },
    await pair('search rank', 'search', '/discovery/search', searchMix()),
    await pair('search explain=1', 'search', '/discovery/search', searchMix('&explain=1')),
    await pair('resources', 'resources', '/discovery/resources', resourcesMix()),
  ];
  for (const { label, queries } of gatewayMixes) {
    workloads.push({
      label,
      direct: queries.map((q) => ({ params: REFERENCE_PARAMS, body: referenceSearchBody(parse('search', q)) })),
      gatewayPaths: queries.map((q) => `/discovery/search?${q}`),
    });
  }
  // A direct body is the main search only: its kNN search of its own is measured beside it (add the two).
  for (const [label, direct] of nearest) workloads.push({ label: `${label}: its kNN search of its own`, direct });
  return { workloads, searches };
}

/** The prepared requests against one index (its alias) and one gateway. */
export function workloadsOn(prepared: PreparedWorkloads, alias: string, esUrl: string, gatewayUrl: string): Workload[] {
  const post = ({ params, body }: Sent) => directSearchRequest(alias, params, body);
  return prepared.workloads.map(({ label, direct, gatewayPaths }) => ({
    label,
    direct: { name: `${label} (direct ES)`, url: esUrl, requests: direct.map(post) },
    ...(gatewayPaths ? { gateway: { name: `${label} (gateway)`, url: gatewayUrl, requests: gatewayPaths.map((path) => ({ method: 'GET' as const, path })) } } : {}),
  }));
}

export interface Row {
  label: string;
  direct: Measured;
  gateway?: Measured | undefined;
}

/** A warm-up, then `rounds` alternating rounds over every target; each figure the median of its rounds. */
export async function runRounds(workloads: Workload[], options: { connections: number; duration: number; rounds: number }, cpu: CpuProbe): Promise<Row[]> {
  const targets = workloads.flatMap((w) => (w.gateway ? [w.direct, w.gateway] : [w.direct]));
  for (const target of targets) await measure(target, options, cpu, 3); // warm caches on both sides
  const runs = new Map<string, Measured[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const target of targets) runs.get(target.name)!.push(await measure(target, options, cpu));
    process.stderr.write(`round ${round + 1}/${options.rounds} done\n`);
  }
  const result = (target: Target | undefined) => (target ? median(runs.get(target.name)!) : undefined);
  return workloads.map((w) => ({ label: w.label, direct: result(w.direct)!, gateway: result(w.gateway) }));
}
