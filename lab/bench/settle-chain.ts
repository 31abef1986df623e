/**
 * Settling on a chain (issue 44): `exact` settles per second and p50/p99 /settle latency at 1, 8
 * and 32 concurrent buyers, each settle a distinct buyer's payment mined on the dev node, beside
 * the same node's raw `eth_sendRawTransaction` rate (pre-signed transfers from one account, the
 * same concurrency): the ceiling a one-sender-per-key facilitator is measured against.
 *
 *   npm run bench -- settle-chain [--settles 200] [--levels 1,8,32]
 *
 * Needs a dev node at CHAIN_RPC_URL (default http://127.0.0.1:8545, chain id 84532) whose test
 * USDC at 0x036C...CF7e has `mint(address,uint256)`, and two of its funded keys:
 * BENCH_FACILITATOR_KEY (the facilitator; Hardhat's account 1 by default, as the dev chain has it)
 * and BENCH_FUNDER_KEY (mints and sends the raw transfers; account 0, the dev chain's deployer). The service runs as a child process with its
 * own index and Redis prefix, deleted at the end.
 */
import { randomBytes } from 'node:crypto';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseAbi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createElasticsearchClient, createRedisClient, dropDeploymentData, loadConfig, numberOption, parseCommandLine, tokenDomain } from '../../src/door.js';
import { TRANSFER_WITH_AUTHORIZATION_TYPES as TYPES } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const DOMAIN = tokenDomain('USDC', '2', 84532, USDC);
const RPC = process.env.CHAIN_RPC_URL ?? 'http://127.0.0.1:8545';
const FACILITATOR_KEY = (process.env.BENCH_FACILITATOR_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') as Hex;
const FUNDER_KEY = (process.env.BENCH_FUNDER_KEY ?? '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80') as Hex;
const TOKEN = parseAbi(['function mint(address,uint256)', 'function balanceOf(address) view returns (uint256)']);

const { values: options } = parseCommandLine(
  { options: { settles: { type: 'string', default: '200' }, levels: { type: 'string', default: '1,8,32' } } },
  'usage: bench-settle-chain [--settles N] [--levels 1,8,32]',
);

const chain = defineChain({ id: 84532, name: 'dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [RPC] } } });
const client = createPublicClient({ chain, transport: http(RPC), pollingInterval: 100 });
const funder = privateKeyToAccount(FUNDER_KEY);
const wallet = createWalletClient({ chain, transport: http(RPC), account: funder });

async function settleBody(payer: PrivateKeyAccount, payTo: string): Promise<string> {
  const requirements = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo, maxTimeoutSeconds: 600, extra: { name: 'USDC', version: '2' } };
  const authorization = { from: payer.address, to: getAddress(payTo), value: '1000', validAfter: '0', validBefore: String(Math.floor(Date.now() / 1000) + 3600), nonce: `0x${randomBytes(32).toString('hex')}` as Hex };
  const signature = await payer.signTypedData({
    domain: DOMAIN,
    types: TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: 1000n, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
  });
  return JSON.stringify({ x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload: { authorization, signature } }, paymentRequirements: requirements });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Runs `jobs` with `concurrency` workers; per-job latency and the whole rate. */
async function measure(jobs: Array<() => Promise<boolean>>, concurrency: number) {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        if (!(await job())) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: Math.round((jobs.length / seconds) * 10) / 10, p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), failures };
}

async function main(): Promise<void> {
  const settles = numberOption('settles', options.settles);
  const levels = options.levels.split(',').map((v) => numberOption('levels', v));
  const suffix = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const env = {
    LISTINGS_ALIAS: `bench-chain-${suffix}-listings`,
    LISTINGS_INDEX: `bench-chain-${suffix}-listings-v1`,
    REDIS_PREFIX: `bench:chain:${suffix}:`,
    FACILITATOR_PRIVATE_KEY: FACILITATOR_KEY,
    CHAIN_RPC_URL: RPC,
    RATE_LIMIT_FACILITATOR: 'off',
    RATE_LIMIT_FACILITATOR_PAYER: 'off',
    // Every settle pays the same payTo: the payee budget would stop a long run, not a real seller.
    SPONSOR_PAYEE_BUDGET_WEI: '9000000000000000000',
  };
  const config = loadConfig({ ...process.env, ...env });
  const redis = createRedisClient(config.redisUrl);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const { child, url } = await startServiceProcess(env);
  try {
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const total = settles * levels.length;
    console.log(`minting test USDC to ${total} buyers...`);
    const buyers = Array.from({ length: total }, () => privateKeyToAccount(generatePrivateKey()));
    let nonce = await client.getTransactionCount({ address: funder.address, blockTag: 'pending' });
    const mints: Hex[] = [];
    for (const buyer of buyers) mints.push(await wallet.writeContract({ address: USDC, abi: TOKEN, functionName: 'mint', args: [buyer.address, 1_000_000n], nonce: nonce++ }));
    await client.waitForTransactionReceipt({ hash: mints.at(-1)! });
    const bodies = await Promise.all(buyers.map((buyer) => settleBody(buyer, payTo)));
    const rows: Array<Record<string, string | number>> = [];
    for (const [i, concurrency] of levels.entries()) {
      const mine = bodies.slice(i * settles, (i + 1) * settles);
      const settle = await measure(
        mine.map((body) => async () => {
          const res = await fetch(`${url}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          return ((await res.json()) as { success?: boolean }).success === true;
        }),
        concurrency,
      );
      // The ceiling: pre-signed 1-wei transfers from the funder, sent raw at the same concurrency.
      const start = await client.getTransactionCount({ address: funder.address, blockTag: 'pending' });
      const fees = await client.estimateFeesPerGas();
      const raws = await Promise.all(
        Array.from({ length: settles }, (_, k) =>
          funder.signTransaction({ chainId: 84532, type: 'eip1559', to: payTo, value: 1n, gas: 21_000n, nonce: start + k, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }),
        ),
      );
      // In nonce order per worker slot: the node mines each as it arrives, so a later nonce waits in its pool.
      const raw = await measure(raws.map((tx) => async () => (await client.sendRawTransaction({ serializedTransaction: tx }).then(() => true, () => false))), concurrency);
      rows.push({ buyers: concurrency, 'settles/s': settle.perSecond, 'settle p50 ms': settle.p50, 'settle p99 ms': settle.p99, 'failed settles': settle.failures, 'raw sendRawTransaction/s': raw.perSecond, 'raw p50 ms': raw.p50 });
    }
    console.table(rows);
    const received = await client.readContract({ address: USDC, abi: TOKEN, functionName: 'balanceOf', args: [payTo] });
    console.log(`seller received on chain: ${received / 1000n} payments of ${total} settles`);
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
