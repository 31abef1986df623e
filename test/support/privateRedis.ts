/**
 * A redis-server of the test's own, on a free loopback port with its data in a temporary
 * directory, that the test may kill with SIGKILL and start again on the same files (the shared
 * Redis on 6379 is never touched).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const hasRedisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PrivateRedis {
  url: string;
  /** SIGKILL: no shutdown save, no final fsync; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts a new redis-server on the same port and files; resolves once it answers PING. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** `persistence`: the redis-server flags that choose how it keeps writes (e.g. `--appendonly yes`). */
export async function startPrivateRedis(persistence: string[]): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'private-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() !== 'PONG') {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: launch,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
