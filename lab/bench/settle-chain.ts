/**
 * Settling on a chain (issue 44): `exact` settles per second and p50/p99 /settle latency at 1, 8
 * and 32 concurrent buyers, each settle a distinct buyer's payment mined on the dev node, beside
 * the same node's raw `eth_sendRawTransaction` rate (pre-signed transfers from one account, the
 * same concurrency): the ceiling a one-sender-per-key facilitator is measured against.
 *
 *   npm run bench -- settle-chain [--settles 200] [--levels 1,8,32] [--setups 1:shared,3:shared,3:own]
 *
 * --setups: how many gateway processes settle, and with which keys (issue 44 item 3, "one sender
 * per key, or a key per gateway"): `N:shared`, N gateways on one deployment sharing
 * BENCH_FACILITATOR_KEY (one sender through the Redis lock), `N:own` (N at most 3), each gateway
 * its own key, Hardhat's accounts 3, 4 and 5; the buyers' settles go round robin over the
 * gateways. Default `1:shared`. Each setup is a deployment of its own (index, Redis prefix).
 *
 * Needs a dev node at CHAIN_RPC_URL (default http://127.0.0.1:8545, chain id 84532) whose test
 * USDC at 0x036C...CF7e has `mint(address,uint256)`, and two of its funded keys:
 * BENCH_FACILITATOR_KEY (the facilitator; Hardhat's account 1 by default, as the dev chain has it)
 * and BENCH_FUNDER_KEY (mints and sends the raw transfers; account 0, the dev chain's deployer). The service runs as child processes with their
 * own index and Redis prefix per setup, deleted at the end.
 */
import { randomBytes } from 'node:crypto';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseAbi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createElasticsearchClient, createRedisClient, dropDeploymentData, loadConfig, numberOption, parseCommandLine, tokenDomain } from '../../src/door.js';
import { TRANSFER_WITH_AUTHORIZATION_TYPES as TYPES } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';
import { stopGateways, type Gateway } from '../lib/gatewayFleet.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const DOMAIN = tokenDomain('USDC', '2', 84532, USDC);
const RPC = process.env.CHAIN_RPC_URL ?? 'http://127.0.0.1:8545';
const FACILITATOR_KEY = (process.env.BENCH_FACILITATOR_KEY ?? '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d') as Hex;
const FUNDER_KEY = (process.env.BENCH_FUNDER_KEY ?? '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80') as Hex;
const TOKEN = parseAbi(['function mint(address,uint256)', 'function balanceOf(address) view returns (uint256)']);
/** Hardhat's default accounts 3, 4 and 5 (public dev keys, 10,000 ETH each on the node): a key per gateway. */
const OWN_KEYS: Hex[] = [
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
];

const { values: options } = parseCommandLine(
  { options: { settles: { type: 'string', default: '200' }, levels: { type: 'string', default: '1,8,32' }, setups: { type: 'string', default: '1:shared' } } },
  'usage: bench-settle-chain [--settles N] [--levels 1,8,32] [--setups 1:shared,3:shared,3:own]',
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

interface Setup {
  gateways: number;
  keys: 'shared' | 'own';
}

function parseSetups(text: string): Setup[] {
  return text.split(',').map((item) => {
    const [count, keys] = item.split(':');
    const gateways = numberOption('setups', count ?? '', { min: 1, max: 8 });
    if (keys !== 'shared' && keys !== 'own') throw new Error(`--setups: "${item}" is not N:shared or N:own`);
    if (keys === 'own' && gateways > OWN_KEYS.length) throw new Error(`--setups: at most ${OWN_KEYS.length} gateways with a key each`);
    return { gateways, keys };
  });
}

/** The env of gateway `i` of a setup: one deployment, the shared key or its own. */
function gatewayEnv(base: Record<string, string>, setup: Setup, i: number): Record<string, string> {
  return { ...base, FACILITATOR_PRIVATE_KEY: setup.keys === 'own' ? OWN_KEYS[i]! : FACILITATOR_KEY };
}

async function main(): Promise<void> {
  const settles = numberOption('settles', options.settles);
  const levels = options.levels.split(',').map((v) => numberOption('levels', v));
  const setups = parseSetups(options.setups);
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const total = settles * levels.length * setups.length;
  console.log(`minting test USDC to ${total} buyers...`);
  const buyers = Array.from({ length: total }, () => privateKeyToAccount(generatePrivateKey()));
  let nonce = await client.getTransactionCount({ address: funder.address, blockTag: 'pending' });
  const mints: Hex[] = [];
  for (const buyer of buyers) mints.push(await wallet.writeContract({ address: USDC, abi: TOKEN, functionName: 'mint', args: [buyer.address, 1_000_000n], nonce: nonce++ }));
  await client.waitForTransactionReceipt({ hash: mints.at(-1)! });
  const bodies = await Promise.all(buyers.map((buyer) => settleBody(buyer, payTo)));
  const rows: Array<Record<string, string | number>> = [];
  for (const [s, setup] of setups.entries()) {
    const suffix = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
    const env = {
      LISTINGS_ALIAS: `bench-chain-${suffix}-listings`,
      LISTINGS_INDEX: `bench-chain-${suffix}-listings-v1`,
      REDIS_PREFIX: `bench:chain:${suffix}:`,
      CHAIN_RPC_URL: RPC,
      RATE_LIMIT_FACILITATOR: 'off',
      RATE_LIMIT_FACILITATOR_PAYER: 'off',
      // Every settle pays the same payTo: the payee budget would stop a long run, not a real seller.
      SPONSOR_PAYEE_BUDGET_WEI: '9000000000000000000',
    };
    const config = loadConfig({ ...process.env, ...env });
    const redis = createRedisClient(config.redisUrl);
    const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
    const gateways: Gateway[] = [];
    try {
      // One after the other (tsx compiling in parallel only slows every start on 2 cores).
      for (let i = 0; i < setup.gateways; i++) gateways.push(await startServiceProcess(gatewayEnv(env, setup, i)));
      let turn = 0;
      for (const [i, concurrency] of levels.entries()) {
        const from = (s * levels.length + i) * settles;
        const mine = bodies.slice(from, from + settles);
        const settle = await measure(
          mine.map((body) => async () => {
            const { url } = gateways[turn++ % gateways.length]!;
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
        rows.push({ gateways: `${setup.gateways} ${setup.keys === 'own' ? 'own keys' : 'one key'}`, buyers: concurrency, 'settles/s': settle.perSecond, 'settle p50 ms': settle.p50, 'settle p99 ms': settle.p99, 'failed settles': settle.failures, 'raw sendRawTransaction/s': raw.perSecond, 'raw p50 ms': raw.p50 });
      }
    } finally {
      await stopGateways(gateways);
      await dropDeploymentData(elasticsearch, redis, config);
      await Promise.allSettled([redis.quit(), elasticsearch.close()]);
    }
  }
  console.table(rows);
  const received = await client.readContract({ address: USDC, abi: TOKEN, functionName: 'balanceOf', args: [payTo] });
  console.log(`seller received on chain: ${received / 1000n} payments of ${total} settles`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
