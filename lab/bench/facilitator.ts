/**
 * Facilitator benchmark (docs/facilitator.md):
 *   1. POST /verify with valid `exact` payloads (EIP-712 signature recovery on every request),
 *   2. POST /settle with distinct valid payloads (each one moves funds once, on the dev chain),
 *   3. settlement -> `signals.settleCount7d` visible in /discovery/search results,
 *   plus the in-process cost of one signature recovery, to show what bounds the service.
 *
 *   npx tsx lab/bench/facilitator.ts [--connections 8] [--verifies 10000] [--settles 1000]
 *
 * 8 connections: at 1,000 req/s a p50 under 5 ms leaves room for about 5 requests in flight.
 *
 * Only targets 127.0.0.1. The service runs as a child process (node + tsx) with its own index and
 * Redis prefix, which are deleted at the end; it verifies and settles on the dev chain at
 * CHAIN_RPC_URL (started when no node answers there) from the dev facilitator key, the payers
 * funded with minted test USDC. Each settle is a mined transaction (lab/bench/settle-chain.ts
 * measures their rate against the node's own), so the default is fewer settles than verifies.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { getAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { loadConfig } from '../../src/door.js';
import { tokenDomain, TRANSFER_WITH_AUTHORIZATION_TYPES as TYPES } from '../../src/door.js';
import { recoverTypedDataSignerUncached } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';
import { chainSettlementEnv, fundPayers, startDevChain } from '../lib/chainSettlements.js';
import { usdcBalance } from '../../chain/devChain.js';
import { numberOption, parseCommandLine } from '../../src/door.js';
import { drainQueue, openCatalogSession } from '../../src/door.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const DOMAIN = tokenDomain('USDC', '2', 84532, USDC);

const { values: options } = parseCommandLine(
  { options: { connections: { type: 'string', default: '8' }, verifies: { type: 'string', default: '10000' }, settles: { type: 'string', default: '1000' } } },
  'usage: bench-facilitator [--connections N] [--verifies N] [--settles N]',
);

interface Body {
  x402Version: number;
  paymentPayload: Record<string, unknown>;
  paymentRequirements: Record<string, unknown>;
}

async function exactBody(payer: PrivateKeyAccount, payTo: string, resource: { url: string; description: string }): Promise<Body> {
  const requirements = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo, maxTimeoutSeconds: 600, extra: { name: 'USDC', version: '2' } };
  const authorization = {
    from: payer.address,
    to: getAddress(payTo),
    value: '1000',
    validAfter: '0',
    validBefore: String(Math.floor(Date.now() / 1000) + 3600),
    nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
  };
  const signature = await payer.signTypedData({
    domain: DOMAIN,
    types: TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: 1000n, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
  });
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, resource, accepted: requirements, payload: { authorization, signature } },
    paymentRequirements: requirements,
  };
}

/** CPU seconds (user + system) the service process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (100/s)
  } catch {
    return Number.NaN;
  }
}

function summarize(name: string, result: autocannon.Result, cpu: number): Record<string, number | string> {
  return {
    name,
    'service CPU ms/req': Number(((cpu * 1000) / result.requests.total).toFixed(3)),
    requests: result.requests.total,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p90 ms': result.latency.p90,
    'p99 ms': result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function run(url: string, connections: number, bodies: string[], path: string, opts: { amount: number }): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    amount: opts.amount,
    requests: [
      {
        setupRequest: (req) => {
          req.body = bodies[next++ % bodies.length];
          return req;
        },
      },
    ],
  });
}

async function main(): Promise<void> {
  const connections = numberOption('connections', options.connections);
  const verifies = numberOption('verifies', options.verifies);
  const settles = numberOption('settles', options.settles);
  const suffix = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const env = {
    LISTINGS_ALIAS: `bench-fac-${suffix}-listings`,
    LISTINGS_INDEX: `bench-fac-${suffix}-listings-v1`,
    REDIS_PREFIX: `bench:fac:${suffix}:`,
    ...chainSettlementEnv(),
    // One payTo and 64 payers for every settle: their daily sponsorship budgets would stop the run, not a real seller.
    SPONSOR_PAYEE_BUDGET_WEI: '9000000000000000000',
    SPONSOR_PAYER_BUDGET_WEI: '9000000000000000000',
  };
  startDevChain();
  const config = loadConfig({ ...process.env, ...env });
  const redis = createRedisClient(config.redisUrl);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  // BENCH_CPU_PROFILE=DIR writes a V8 CPU profile of the service (open it in Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const { child, url } = await startServiceProcess(env, profile);
  try {
    // Signature recovery alone, in this process: the CPU floor of one /verify.
    const payers = Array.from({ length: 64 }, () => privateKeyToAccount(generatePrivateKey()));
    await fundPayers(payers.map((p) => p.address), 10n ** 15n);
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const resource = { url: 'http://bench.test/weather', description: 'Benchmark weather endpoint' };
    const sample = await exactBody(payers[0]!, payTo, resource);
    const auth = (sample.paymentPayload.payload as { authorization: Record<string, string>; signature: Hex }).authorization;
    const sig = (sample.paymentPayload.payload as { signature: Hex }).signature;
    const recoveries = 2000;
    const typedData = {
      domain: DOMAIN,
      types: TYPES,
      primaryType: 'TransferWithAuthorization' as const,
      message: { from: auth.from as Hex, to: auth.to as Hex, value: 1000n, validAfter: 0n, validBefore: BigInt(auth.validBefore!), nonce: auth.nonce as Hex },
    };
    let t0 = performance.now();
    for (let i = 0; i < recoveries; i++) await recoverTypedDataAddress({ ...typedData, signature: sig });
    const viemMs = (performance.now() - t0) / recoveries;
    t0 = performance.now();
    for (let i = 0; i < recoveries; i++) recoverTypedDataSignerUncached(typedData, sig);
    const serviceMs = (performance.now() - t0) / recoveries;
    console.log(
      `EIP-712 signer recovery, one core: viem (pure JS) ${viemMs.toFixed(3)} ms, service (viem digest + libsecp256k1 WASM) ${serviceMs.toFixed(3)} ms` +
        ` -> at most ~${Math.round(1000 / serviceMs)} recoveries/s per core`,
    );

    // Distinct payloads for every measured request: the service caches recent recoveries (a seller
    // verifies then settles the same payment), and a repeated payload would measure that cache.
    console.log(`signing ${verifies} distinct verify payloads...`);
    const verifyJson: string[] = [];
    for (let i = 0; i < verifies + 500; i++) verifyJson.push(JSON.stringify(await exactBody(payers[i % payers.length]!, payTo, resource)));
    const warmup = verifyJson.splice(0, 500);
    const check = await (await fetch(`${url}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: warmup[0] })).json();
    if (!(check as { isValid?: boolean }).isValid) throw new Error(`verify payload rejected: ${JSON.stringify(check)}`);
    await run(url, connections, warmup, '/verify', { amount: warmup.length }); // warm-up (JIT, connections)
    let cpu = cpuSeconds(child.pid);
    const verify = await run(url, connections, verifyJson, '/verify', { amount: verifyJson.length });
    const verifyCpu = cpuSeconds(child.pid) - cpu;

    console.log(`signing ${settles} distinct settle payloads...`);
    const settleJson: string[] = [];
    for (let i = 0; i < settles; i++) settleJson.push(JSON.stringify(await exactBody(payers[i % payers.length]!, payTo, resource)));
    const sellerBefore = await usdcBalance(payTo);
    cpu = cpuSeconds(child.pid);
    const settle = await run(url, connections, settleJson, '/settle', { amount: settles });
    const settleCpu = cpuSeconds(child.pid) - cpu;
    const moved = (await usdcBalance(payTo)) - sellerBefore;
    console.table([summarize('POST /verify', verify, verifyCpu), summarize('POST /settle', settle, settleCpu)]);
    console.log(`machine load average (1 min) at the end: ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores`);
    console.log(`settlements that moved funds on chain: ${moved / 1000n} of ${settles} distinct payloads`);

    // Settlement -> search signals: a listing that exists (listed as a probe of its 402 would list
    // it, paid to payTo: a payment counts only for the listing whose seller it paid), then a
    // settlement by another payer.
    const word = `zq${suffix}`;
    const fresh = { url: `http://bench.test/${word}`, description: `Signals probe ${word}` };
    const session = await openCatalogSession(env);
    await session.catalog.writer.upsert(
      { type: 'http', resource: fresh.url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo }, describe: { description: fresh.description } },
      { source: 'bench' },
    );
    await drainQueue(session);
    await session.close();
    const post = (path: string, body: Body) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await post('/settle', await exactBody(payers[1]!, payTo, fresh));
    const search = async () =>
      (await (await fetch(`${url}/discovery/search?q=${word}`)).json()) as { results?: Array<{ signals: { settleCount7d: number } }> };
    for (let i = 0; i < 100 && (await search()).results?.[0]?.signals.settleCount7d !== 1; i++) await new Promise((r) => setTimeout(r, 100));
    const next = await exactBody(payers[2]!, payTo, fresh);
    const settledAt = performance.now();
    await post('/settle', next);
    let visibleMs: number | undefined;
    for (let i = 0; i < 300; i++) {
      if ((await search()).results?.[0]?.signals.settleCount7d === 2) {
        visibleMs = performance.now() - settledAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(visibleMs === undefined ? 'settlement NOT visible in search within 15 s' : `settlement visible in /discovery/search signals after ${Math.round(visibleMs)} ms`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await dropDeploymentData(elasticsearch, redis, config);
    await Promise.allSettled([redis.quit(), elasticsearch.close()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
