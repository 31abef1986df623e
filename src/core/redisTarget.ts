/**
 * Where Redis is: one server (`redis://`, `rediss://`) or the seed nodes of a Redis Cluster
 * (`redis+cluster://host:port,host:port`, which REDIS_CLUSTER_NODES=host:port,host:port becomes).
 * Pure parsing, shared by the configuration check and the connection factory (store/redis/client.ts).
 */
export const CLUSTER_SCHEME = 'redis+cluster:';

export interface ClusterSeed {
  host: string;
  port: number;
}

const NODE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** `host:port,host:port` -> seeds; throws with the offending entry on a bad one. */
export function parseClusterNodes(list: string): ClusterSeed[] {
  const nodes = list.split(',').map((node) => node.trim()).filter(Boolean);
  if (nodes.length === 0) throw new Error('must name at least one Redis Cluster node (host:port)');
  return nodes.map((node) => {
    const match = NODE.exec(node);
    const port = Number(match?.[2] ?? 6379);
    if (!match || port < 1 || port > 65535) throw new Error(`"${node}" is not host:port`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

/** The seeds of a `redis+cluster://` URL, or undefined for a single-server URL. */
export function clusterSeeds(url: string): ClusterSeed[] | undefined {
  if (!url.startsWith(`${CLUSTER_SCHEME}//`)) return undefined;
  return parseClusterNodes(url.slice(CLUSTER_SCHEME.length + 2));
}

/** REDIS_CLUSTER_NODES in the URL form the rest of the service reads. */
export function clusterUrl(nodes: string): string {
  return `${CLUSTER_SCHEME}//${nodes.split(',').map((node) => node.trim()).filter(Boolean).join(',')}`;
}

/** A configuration problem with a Redis URL, or undefined when it is usable. */
export function redisUrlProblem(url: string): string | undefined {
  if (url.startsWith(CLUSTER_SCHEME)) {
    if (!url.startsWith(`${CLUSTER_SCHEME}//`)) return `must be ${CLUSTER_SCHEME}//host:port,host:port`;
    try {
      clusterSeeds(url);
      return undefined;
    } catch (err) {
      return `Redis Cluster nodes: ${(err as Error).message}`;
    }
  }
  try {
    return ['redis:', 'rediss:'].includes(new URL(url).protocol) ? undefined : `must be a redis:, rediss: or ${CLUSTER_SCHEME} URL`;
  } catch {
    return `must be a URL (redis:, rediss: or ${CLUSTER_SCHEME})`;
  }
}
