import { Client, errors } from '@elastic/elasticsearch';

export type { Client as ElasticsearchClient } from '@elastic/elasticsearch';

export function createElasticsearchClient(url: string, options: { requestTimeoutMs?: number } = {}): Client {
  return new Client({
    node: url,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    // One node on loopback: retrying a refused connection only delays the 503 the caller needs.
    maxRetries: 1,
    compression: false,
  });
}

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
    // A missing index is being re-created (IndexKeeper): for a reader it is an outage, not a bug.
    return (
      status === 503 ||
      status === 429 ||
      type === 'cluster_block_exception' ||
      type === 'no_shard_available_action_exception' ||
      type === 'index_not_found_exception'
    );
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
