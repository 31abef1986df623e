/**
 * The lab's settlements on the dev chain (issue 44): the node started like the other services,
 * payers funded with minted test USDC, the gateways' facilitator settings, and the check every
 * settling tool ends with, "every acknowledged settlement found on the chain exactly once":
 * - found: the hash the gateway answered with has a mined, successful receipt carrying the token's
 *   Transfer of the right amount from the payer to payTo, and its AuthorizationUsed;
 * - exactly once: the token logged AuthorizationUsed for that (payer, nonce) once in the run's
 *   blocks, and the facilitator mined one transaction calling it with that authorization (a second
 *   send would revert on chain and move nothing, but it is a second transaction all the same, and
 *   gas spent: the issue forbids it);
 * - no money moved twice: each payee's balance is the sum of the authorizations used for it;
 * - nothing left in flight: the facilitator has no pending transaction at the end.
 * A settlement not acknowledged (its client gave up) may have moved once or not at all, never more.
 */
import { execFileSync } from 'node:child_process';
import { decodeFunctionData, getAddress, parseAbi, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildContracts } from '../../chain/build.js';
import { DEV_FACILITATOR_KEY, DEV_USDC_ADDRESS, devChainRpcUrl, ensureDevChain, fundBuyer } from '../../chain/devChain.js';

const EVENTS = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

/** Starts the dev chain at CHAIN_RPC_URL unless a node answers there, and places our contracts (scripts/chain.sh). */
export function startDevChain(rpcUrl = devChainRpcUrl()): void {
  execFileSync('bash', ['scripts/chain.sh', 'start'], { env: { ...process.env, CHAIN_RPC_URL: rpcUrl }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** What a gateway needs to settle on the dev chain from `key` (the dev facilitator account by default). */
export function chainSettlementEnv(rpcUrl = devChainRpcUrl(), key: Hex = DEV_FACILITATOR_KEY): Record<string, string> {
  return { FACILITATOR_PRIVATE_KEY: key, CHAIN_RPC_URL: rpcUrl };
}

/**
 * Mints `usdcBaseUnits` of test USDC to each payer, one after the other: Hardhat's automining node
 * refuses a nonce ahead of the next one ("transactions can't be queued"), which concurrent mints
 * from the one deployer account would send whenever two reach it out of order.
 */
export async function fundPayers(addresses: string[], usdcBaseUnits: bigint, rpcUrl = devChainRpcUrl()): Promise<void> {
  for (const address of addresses) await fundBuyer(address, usdcBaseUnits, 0n, rpcUrl);
}

/** One settlement a tool asked for: what it signed, and whether a gateway acknowledged it. */
export interface SettleRecord {
  payer: string;
  payTo: string;
  amount: bigint;
  nonce: Hex;
  acked: boolean;
  /** The transaction hash of the acknowledging answer. */
  transaction?: string;
}

/** The payload's EIP-3009 authorization, as the tools' exactRequest signs it. */
export function settleRecord(body: { paymentPayload: { payload: { authorization: { from: string; to: string; value: string; nonce: string } } } }): SettleRecord {
  const { from, to, value, nonce } = body.paymentPayload.payload.authorization;
  return { payer: from, payTo: to, amount: BigInt(value), nonce: nonce as Hex, acked: false };
}

export interface ChainCheck {
  /** Settlements the tool asked for, and of them acknowledged. */
  settles: number;
  acknowledged: number;
  /** Acknowledged settlements whose answer's transaction was found mined with the right Transfer. */
  foundOnChain: number;
  /** Acknowledged settlements not found on chain as answered (each named). */
  lost: string[];
  /** Authorizations used or sent more than once, or two acknowledged settlements sharing a hash (each named). */
  duplicated: string[];
  /** Settlements not acknowledged that moved anyway (allowed: the answer was lost, not the payment). */
  unacknowledgedMoved: number;
  /** Payees whose balance is not the sum of the authorizations used for them (each named). */
  balanceMismatches: string[];
  /** The facilitator's transactions mined in the run's blocks, those that reverted, and those still pending at the end. */
  facilitatorTransactions: number;
  reverted: number;
  pending: number;
  passed: boolean;
}

const authorizationKey = (payer: string, nonce: string) => `${payer.toLowerCase()}:${nonce.toLowerCase()}`;

/** Reads blocks `from`..`to` with `concurrency` requests in flight (one Hardhat block per transaction). */
async function blocks(client: PublicClient, from: bigint, to: bigint, concurrency = 8) {
  const numbers = Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));
  const found: Awaited<ReturnType<typeof client.getBlock<true>>>[] = [];
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let n = numbers.shift(); n !== undefined; n = numbers.shift()) found.push(await client.getBlock({ blockNumber: n, includeTransactions: true }));
  }));
  return found;
}

/**
 * Checks `settles` against the chain's blocks from `fromBlock` (taken before the first settle) to
 * the latest, for the facilitator account `facilitator`. Waits up to 30 s for pending transactions.
 */
export async function checkSettlementsOnChain(settles: SettleRecord[], fromBlock: bigint, facilitator: string = privateKeyToAccount(DEV_FACILITATOR_KEY).address, rpcUrl = devChainRpcUrl()): Promise<ChainCheck> {
  const { client } = await ensureDevChain(rpcUrl);
  const usdc = DEV_USDC_ADDRESS;
  const from = getAddress(facilitator);
  let pending = 0;
  for (const deadline = Date.now() + 30_000; ;) {
    const [mined, all] = await Promise.all([client.getTransactionCount({ address: from, blockTag: 'latest' }), client.getTransactionCount({ address: from, blockTag: 'pending' })]);
    pending = all - mined;
    if (pending === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const latest = await client.getBlockNumber();
  // Every AuthorizationUsed of the run, and every facilitator transaction calling the token with an authorization.
  const used = new Map<string, number>();
  for (const log of await client.getLogs({ address: usdc, event: EVENTS[1], fromBlock, toBlock: latest })) {
    const key = authorizationKey(log.args.authorizer!, log.args.nonce!);
    used.set(key, (used.get(key) ?? 0) + 1);
  }
  const abi = buildContracts().TestUSDC!.abi;
  const sent = new Map<string, number>();
  let facilitatorTransactions = 0;
  let reverted = 0;
  for (const block of await blocks(client, fromBlock, latest)) {
    for (const tx of block.transactions) {
      if (getAddress(tx.from) !== from) continue;
      facilitatorTransactions += 1;
      const receipt = await client.getTransactionReceipt({ hash: tx.hash });
      if (receipt.status !== 'success') reverted += 1;
      if (!tx.to || getAddress(tx.to) !== usdc) continue;
      const call = (() => {
        try {
          return decodeFunctionData({ abi, data: tx.input });
        } catch {
          return undefined;
        }
      })();
      if (!call || !/WithAuthorization$/.test(call.functionName)) continue;
      const args = call.args as readonly unknown[];
      const key = authorizationKey(args[0] as string, args[5] as string);
      sent.set(key, (sent.get(key) ?? 0) + 1);
    }
  }

  const lost: string[] = [];
  const duplicated: string[] = [];
  const hashes = new Map<string, number>();
  let foundOnChain = 0;
  let unacknowledgedMoved = 0;
  const expected = new Map<string, bigint>();
  for (const settle of settles) {
    const key = authorizationKey(settle.payer, settle.nonce);
    const uses = used.get(key) ?? 0;
    const sends = sent.get(key) ?? 0;
    if (uses > 1) duplicated.push(`authorization ${key} used ${uses} times`);
    if (sends > 1) duplicated.push(`authorization ${key} sent in ${sends} facilitator transactions`);
    if (uses > 0) expected.set(settle.payTo.toLowerCase(), (expected.get(settle.payTo.toLowerCase()) ?? 0n) + settle.amount);
    if (!settle.acked) {
      if (uses > 0) unacknowledgedMoved += 1;
      continue;
    }
    const hash = settle.transaction as Hex | undefined;
    if (!hash) {
      lost.push(`${key}: acknowledged without a transaction hash`);
      continue;
    }
    hashes.set(hash.toLowerCase(), (hashes.get(hash.toLowerCase()) ?? 0) + 1);
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (!receipt || receipt.status !== 'success') {
      lost.push(`${key}: ${hash} ${receipt ? 'reverted' : 'has no mined receipt'}`);
      continue;
    }
    const logs = parseEventLogs({ abi: EVENTS, logs: receipt.logs.filter((l) => getAddress(l.address) === usdc) });
    const transfer = logs.some((l) => l.eventName === 'Transfer' && getAddress(l.args.from) === getAddress(settle.payer) && getAddress(l.args.to) === getAddress(settle.payTo) && l.args.value === settle.amount);
    const authorization = logs.some((l) => l.eventName === 'AuthorizationUsed' && authorizationKey(l.args.authorizer, l.args.nonce) === key);
    if (!transfer || !authorization) {
      lost.push(`${key}: ${hash} carries ${transfer ? '' : 'no Transfer of the amount to payTo'}${!transfer && !authorization ? ' and ' : ''}${authorization ? '' : 'no AuthorizationUsed of its nonce'}`);
      continue;
    }
    foundOnChain += 1;
  }
  for (const [hash, count] of hashes) if (count > 1) duplicated.push(`${count} acknowledged settlements answered with one transaction ${hash}`);

  const balanceMismatches: string[] = [];
  const token = parseAbi(['function balanceOf(address) view returns (uint256)']);
  const payees = [...new Set(settles.map((s) => s.payTo.toLowerCase()))];
  for (const payee of payees) {
    const balance = await client.readContract({ address: usdc, abi: token, functionName: 'balanceOf', args: [payee as Address] });
    const want = expected.get(payee) ?? 0n;
    if (balance !== want) balanceMismatches.push(`${payee} holds ${balance}, the authorizations used for it sum to ${want}`);
  }
  const acknowledged = settles.filter((s) => s.acked).length;
  return {
    settles: settles.length,
    acknowledged,
    foundOnChain,
    lost,
    duplicated,
    unacknowledgedMoved,
    balanceMismatches,
    facilitatorTransactions,
    reverted,
    pending,
    passed: foundOnChain === acknowledged && lost.length === 0 && duplicated.length === 0 && balanceMismatches.length === 0 && reverted === 0 && pending === 0,
  };
}

/** The block the run starts after: the settlements checked are those mined past it. */
export async function currentBlock(rpcUrl = devChainRpcUrl()): Promise<bigint> {
  const { client } = await ensureDevChain(rpcUrl);
  return (await client.getBlockNumber()) + 1n;
}

/** One line for a tool's log. */
export function describeChainCheck(check: ChainCheck): string {
  return `${check.acknowledged} of ${check.settles} settlements acknowledged, ${check.foundOnChain} found on chain as answered, ${check.lost.length} lost, ${check.duplicated.length} duplicated, ${check.unacknowledgedMoved} unacknowledged that moved once, ${check.balanceMismatches.length} payee balances off, ${check.facilitatorTransactions} facilitator transactions (${check.reverted} reverted, ${check.pending} pending)`;
}
