/**
 * The loopback Redis Cluster of scripts/cluster.sh (3 primaries, 1 replica each, ports 7100-7105),
 * started once under a lock and left running like the single Redis of scripts/services.sh.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

export const REDIS_CLUSTER_PORT = Number(process.env.REDIS_CLUSTER_PORT ?? 7100);
export const REDIS_CLUSTER_URL = `redis+cluster://127.0.0.1:${REDIS_CLUSTER_PORT},127.0.0.1:${REDIS_CLUSTER_PORT + 1},127.0.0.1:${REDIS_CLUSTER_PORT + 2}`;

const hasRedisServer = spawnSync('sh', ['-c', 'command -v redis-server && command -v redis-cli'], { stdio: 'ignore' }).status === 0;

/** Starts the cluster (or finds it up) in a `before` hook; skips the suite when redis-server is missing. */
export function ensureRedisCluster(context: Mocha.Context): void {
  if (!hasRedisServer) {
    console.log('    (skipped: redis-server/redis-cli are not installed, so no local Redis Cluster can be started)');
    context.skip();
  }
  // flock: test runs of several worktrees may start it at the same moment; the second finds it up.
  // --close: the daemonized redis-servers must not inherit (and hold forever) the lock.
  const started = spawnSync('flock', ['--close', '--timeout', '50', `/tmp/redis-cluster-${REDIS_CLUSTER_PORT}.lock`, 'bash', 'scripts/cluster.sh', 'redis', 'start'], {
    env: { ...process.env, REDIS_CLUSTER_PORT: String(REDIS_CLUSTER_PORT) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(started.status, 0, `scripts/cluster.sh redis start failed:\n${started.stderr}`);
}
