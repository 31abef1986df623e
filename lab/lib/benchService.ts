/**
 * The service a benchmark measures, built the way src/server.ts builds it, on 127.0.0.1 only:
 * - as a child process (node + tsx), when the load generator must not share its event loop or
 *   its CPU accounting (/proc/PID/stat);
 * - in this process, when the benchmark needs the container itself (stores, tokens, queues).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/door.js';
import { loadConfig, type Config } from '../../src/door.js';
import { buildContainer, type Container } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../../src/door.js';
import { ensureListingIndex } from '../../src/door.js';
import { createRedisClient, type RedisClient } from '../../src/door.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Resolves once the child printed its "listening on" line, so the first measured request finds it
 * ready. `root`: another checkout whose service to start (lab/lib/codeWorktree.ts); this one's by default.
 */
export async function startServiceProcess(env: Record<string, string>, nodeArgs: string[] = [], root?: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const entry = root ? join(root, 'src', 'server.ts') : fileURLToPath(new URL('../../src/server.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    ...(root ? { cwd: root } : {}),
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await untilListening(child, 'service', 60_000);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Resolves once a child started by a benchmark printed its "listening on" line; rejects if it exits first or takes longer than `timeoutMs`. */
export function untilListening(child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

export interface InProcessService {
  config: Config;
  elasticsearch: ElasticsearchClient;
  redis: RedisClient;
  container: Container;
  url: string;
  /** Stops the server and workers, then deletes the deployment's index and Redis keys. */
  close(): Promise<void>;
}

/** `env` must name a scratch deployment (LISTINGS_ALIAS, LISTINGS_INDEX, REDIS_PREFIX): close() deletes it. */
export async function startServiceInProcess(env: Record<string, string | undefined>): Promise<InProcessService> {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  await ensureListingIndex(elasticsearch, config.listingsAlias, config.listingsIndex, config.listingsLayout);
  const container = buildContainer(config, logger, { elasticsearch, redis });
  for (const worker of container.workers) worker.start();
  const app = createApp({ config, logger, elasticsearch, redis, routers: container.routers });
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    config,
    elasticsearch,
    redis,
    container,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await Promise.allSettled(container.workers.map((w) => w.stop()));
      await dropDeploymentData(elasticsearch, redis, config);
      await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    },
  };
}
