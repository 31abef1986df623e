/**
 * The real entry point as an operator runs it: a child process with environment variables.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { dropDeploymentData } from '../src/store/deploymentData.js';
import { ON_CHAIN, testConfig } from './support/harness.js';
import { exactRequest, newWallet, requirements } from './support/payments.js';
import { fundBuyer } from './support/chainFunding.js';

const ENTRY = fileURLToPath(new URL('../src/server.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function listeningUrl(run: Run, timeoutMs = 25_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(run.stdout());
    if (match) return match[1]!;
    if (run.child.exitCode !== null) throw new Error(`server exited: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

describe('the server process', function () {
  // Starting the service under tsx compiles it first: seconds on a busy machine.
  this.timeout(45_000);
  const config = testConfig();
  // The process settles on the dev chain as every harness does (ON_CHAIN: the facilitator key, the node, roomy sponsor budgets).
  const env = { ...ON_CHAIN, LISTINGS_ALIAS: config.listingsAlias, LISTINGS_INDEX: config.listingsIndex, REDIS_PREFIX: config.redisPrefix };

  after(async () => {
    const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
    const redis = createRedisClient(config.redisUrl);
    await dropDeploymentData(elasticsearch, redis, config);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  });

  it('serves, and on SIGTERM finishes what is in flight, closes its clients and exits 0', async () => {
    const run = startServer(env);
    const url = await listeningUrl(run);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    // A request whose headers arrived but whose body is still coming is in flight when SIGTERM lands.
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    const body = JSON.stringify({ resource: 'https://example.com/paid' });
    socket.write(`POST /discovery/announce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body);
    await closed; // the server answers, then closes the connection as it shuts down
    assert.match(answer, /^HTTP\/1\.1 202/);
    assert.equal(await run.exited, 0);
    assert.match(run.stdout(), /"message":"stopped"/);
  });

  it('cuts off a request that never completes within its grace period, names it, and still exits 0', async function () {
    // A client that sends headers and never its body holds the request open: the whole stop must
    // still fit in SHUTDOWN_GRACE_MS (the HTTP drain once waited the full grace before the workers
    // even began to stop, and a test:cluster gateway exited 10.3 s after SIGTERM with 10 s of grace).
    const grace = 3000;
    const run = startServer({ ...env, SHUTDOWN_GRACE_MS: String(grace) });
    const url = await listeningUrl(run);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => undefined);
    socket.write('POST /discovery/announce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{"resource"');
    await new Promise((r) => setTimeout(r, 300));
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    const code = await run.exited;
    const took = Date.now() - signalled;
    await closed;
    assert.equal(code, 0, run.stdout());
    assert.ok(took < grace + 1000, `stopped ${took} ms after SIGTERM`);
    const cut = run.stdout().split('\n').find((line) => line.includes('closing connections still busy'));
    assert.ok(cut, run.stdout());
    assert.deepEqual(
      (JSON.parse(cut) as { requests: { method: string; url: string }[] }).requests.map((r) => `${r.method} ${r.url}`),
      ['POST /discovery/announce'],
    );
  });

  it('stops within its grace period right after a burst of settlements for one resource (exit 0, not the deadline)', async function () {
    this.timeout(90_000);
    // Each settlement asks for a catalog write of the resource it paid for. Those once ran one per
    // payment, one after another, and SIGTERM waited for all of them: minutes after a busy spell
    // (a test:cluster gateway sat idle for 8), cut off only by the SHUTDOWN_GRACE_MS deadline.
    const grace = 3000;
    const run = startServer({
      ...env,
      SHUTDOWN_GRACE_MS: String(grace),
      ...Object.fromEntries(['FACILITATOR', 'FACILITATOR_PAYER'].map((n) => [`RATE_LIMIT_${n}`, 'off'])),
    });
    const url = await listeningUrl(run);
    const payer = newWallet();
    await fundBuyer(payer.address, 10n ** 12n);
    // Every payment names a new payee and price, so no sighting repeats another (each needs its write).
    const bodies = await Promise.all(Array.from({ length: 400 }, (_, i) => exactRequest(payer, requirements(newWallet().address, { amount: String(1000 + i) }))));
    const settle = async (body: object) => {
      const res = await fetch(`${url}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { success: boolean }).success, true);
    };
    for (let i = 0; i < bodies.length; i += 40) await Promise.all(bodies.slice(i, i + 40).map(settle));
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    const code = await run.exited;
    const took = Date.now() - signalled;
    assert.equal(code, 0, `exit ${code} after ${took} ms: ${run.stdout().split('\n').filter((l) => l.includes('grace')).join('\n')}`);
    assert.ok(took < grace + 1000, `stopped after ${took} ms`);
  });

  it('refuses to start with invalid configuration, listing every bad variable (exit 2)', async () => {
    const run = startServer({ ...env, PORT: 'http', REDIS_URL: 'localhost:6379' });
    assert.equal(await run.exited, 2);
    assert.match(run.stderr(), /PORT="http": must be an integer/);
    assert.match(run.stderr(), /REDIS_URL="localhost:6379": must be a redis:, rediss: or redis\+cluster: URL/);
  });

  it('refuses to start when Elasticsearch cannot be reached, saying how to start it (exit 1)', async () => {
    const run = startServer({ ...env, ELASTICSEARCH_URL: 'http://127.0.0.1:1' });
    assert.equal(await run.exited, 1);
    assert.match(run.stderr(), /refusing to start: cannot prepare the listing index at http:\/\/127\.0\.0\.1:1/);
    assert.match(run.stderr(), /npm run services -- start/);
  });
});
