/**
 * The dev chain as the chain tests see it (issue 44), over chain/devChain.ts (the node that
 * scripts/services.sh starts for npm test, its contracts and dev keys): whether it answers,
 * funding a buyer, balances, and the mining switches the pending-transaction tests use.
 */
import assert from 'node:assert/strict';
import { createPublicClient, defineChain, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FACILITATOR_ADDRESS } from './payments.js';
import { DEV_FACILITATOR_KEY, devChainRpcUrl, ensureDevChain, fundBuyer as fundOnDevChain, usdcBalance as usdcOnDevChain } from '../../chain/devChain.js';

export { DEV_FACILITATOR_KEY };
export const DEV_FACILITATOR_ADDRESS = privateKeyToAccount(DEV_FACILITATOR_KEY).address;
assert.equal(FACILITATOR_ADDRESS, DEV_FACILITATOR_ADDRESS, 'test/support/payments.ts names the dev facilitator key\'s address');
export const CHAIN_RPC_URL = devChainRpcUrl();

const chain = defineChain({ id: 84532, name: 'dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [CHAIN_RPC_URL] } } });
export const chainClient: PublicClient = createPublicClient({ chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }), pollingInterval: 100 });

/**
 * The dev chain answers with the test USDC (deployed if missing). npm test starts the node, so a
 * chain test fails here, naming the cause, rather than skip: a suite that skipped its payments
 * would pass without moving a token.
 */
export async function requireDevChain(): Promise<void> {
  try {
    await ensureDevChain(CHAIN_RPC_URL);
  } catch (err) {
    throw new Error(`no dev chain with the test USDC at ${CHAIN_RPC_URL} (npm run services -- chain start): ${(err as Error).message}`);
  }
}

/**
 * Fundings one after another: minting sends from the deployer account, and concurrent sends of
 * one account race for its nonce on an automining node ("nonce too high"), so a test may fund its
 * buyers with Promise.all and they still mint in turn.
 */
let fundings: Promise<unknown> = Promise.resolve();
function inTurn(work: () => Promise<void>): Promise<void> {
  const next = fundings.then(work, work);
  fundings = next.catch(() => undefined);
  return next;
}

export function fundBuyer(address: string, amount: bigint): Promise<void> {
  return inTurn(async () => void (await fundOnDevChain(address, amount, 0n, CHAIN_RPC_URL)));
}

/** Native currency for gas (added to the balance: no sender, no nonce to race for). */
export function fundGas(address: string, wei: bigint): Promise<void> {
  return inTurn(async () => void (await fundOnDevChain(address, 0n, wei, CHAIN_RPC_URL)));
}

export function usdcBalance(address: string): Promise<bigint> {
  return usdcOnDevChain(address, CHAIN_RPC_URL);
}

export async function setAutomine(on: boolean): Promise<void> {
  await chainClient.request({ method: 'evm_setAutomine' as never, params: [on] as never });
}

export async function mineBlock(): Promise<void> {
  await chainClient.request({ method: 'evm_mine' as never, params: [] as never });
}

/** The facilitator account's native balance on the dev chain: what the fee sponsor holds. */
export function sponsorWei(address: string = DEV_FACILITATOR_ADDRESS): Promise<bigint> {
  return chainClient.getBalance({ address: address as `0x${string}` });
}

/** What a buyer or seller can check of a settlement: its transaction is mined, succeeded, and was sent by the facilitator. */
export async function assertMined(hash: string, from: string = DEV_FACILITATOR_ADDRESS): Promise<void> {
  assert.match(hash, /^0x[0-9a-f]{64}$/);
  const receipt = await chainClient.getTransactionReceipt({ hash: hash as `0x${string}` });
  assert.equal(receipt.status, 'success');
  assert.equal(receipt.from.toLowerCase(), from.toLowerCase());
}
