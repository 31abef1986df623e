import { Client, ClusterConnectionPool, errors, type ClientOptions } from '@elastic/elasticsearch';
import { commaList } from '../../config/envReader.js';
import { SearchHttp } from './searchHttp.js';

export type { Client as ElasticsearchClient } from '@elastic/elasticsearch';

/** The node URLs of ELASTICSEARCH_URL (one URL, or a comma-separated list for a cluster). */
export function elasticsearchNodeUrls(url: string): string[] {
  return commaList(url);
}

/**
 * One node: one retry (retrying a refused connection only delays the 503 the caller needs).
 * Several nodes (docs/elasticsearch-cluster.md): a request that cannot reach a node is retried on
 * the next one, and the ClusterConnectionPool leaves a node that failed out of the rotation until
 * a ping (every 60 s, backing off) finds it back, so a node that is down costs one failed
 * connection, not one per request. No sniffing: the addresses nodes publish are often not the
 * ones a gateway can reach (containers, NAT), so the configured list is the truth.
 */
export function createElasticsearchClient(url: string, options: { requestTimeoutMs?: number } = {}): Client {
  const nodes = elasticsearchNodeUrls(url);
  const requestTimeout = options.requestTimeoutMs ?? 10_000;
  return new CatalogClient(
    {
      nodes,
      ...(nodes.length > 1 ? { ConnectionPool: ClusterConnectionPool } : {}),
      requestTimeout,
      maxRetries: Math.max(1, nodes.length),
      compression: false,
    },
    new SearchHttp(nodes, requestTimeout),
  );
}

/** The official client, and the catalog reads' own HTTP path to the same nodes (searchHttp.ts), closed with it. */
class CatalogClient extends Client {
  constructor(
    options: ClientOptions,
    readonly reads: SearchHttp,
  ) {
    super(options);
  }

  override async close(): Promise<void> {
    await this.reads.close();
    return super.close();
  }
}

/** The catalog reads' HTTP path of a client this module made; undefined for any other client (which then serves them itself). */
export function searchHttpOf(client: Client): SearchHttp | undefined {
  return client instanceof CatalogClient ? client.reads : undefined;
}

const UNAVAILABLE_TYPES = new Set([
  'cluster_block_exception',
  'no_shard_available_action_exception',
  'index_closed_exception',
  'index_not_found_exception',
]);

/**
 * True when the error means "Elasticsearch could not be reached or is not serving" rather than
 * "Elasticsearch rejected this request": the first becomes 503 search_unavailable, the second a bug.
 */
export function isElasticsearchUnavailable(err: unknown): boolean {
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) {
    return true;
  }
  if (err instanceof errors.ResponseError) {
    const status = err.meta.statusCode ?? 0;
    const type = (err.meta.body as { error?: { type?: string } } | undefined)?.error?.type;
    // A closed index is what `npm run ranking -- set bm25.*` leaves for about a second; a missing one
    // is being re-created (IndexKeeper): for a reader both are an outage, not a bug.
    return status === 503 || status === 429 || (type !== undefined && UNAVAILABLE_TYPES.has(type));
  }
  if (err instanceof errors.ProductNotSupportedError) return true;
  return false;
}

/** Cluster health is the probe: this distribution answers `GET /` with 405, so ping() cannot be used. */
export async function elasticsearchAnswers(client: Client, timeoutMs = 2000): Promise<boolean> {
  try {
    await client.cluster.health({ timeout: `${timeoutMs}ms` }, { requestTimeout: timeoutMs, maxRetries: 0 });
    return true;
  } catch {
    return false;
  }
}
