/**
 * Settling on a chain (issue 44): where each configured network's JSON-RPC node is, the key the
 * facilitator sends transactions from, and how long it waits for them. Without a key no
 * transaction can be sent, so no network is offered; with one, every network of
 * FACILITATOR_NETWORKS needs a node.
 */
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import type { Env, EnvReader } from './envReader.js';
import { checkUrl } from './envReader.js';

export interface ChainSettings {
  /** The facilitator's key (FACILITATOR_KEY_FILE, else FACILITATOR_PRIVATE_KEY); unset: no network is offered. */
  privateKey?: `0x${string}`;
  /** Its address, derived from the key. */
  address?: string;
  /** JSON-RPC URL per CAIP-2 network: CHAIN_RPC_URL_<chainId>, else CHAIN_RPC_URL. */
  rpcUrls: Record<string, string>;
  /** Blocks a settlement's receipt waits for (1: the block that mined it). */
  confirmations: number;
  /** How long /settle waits for a receipt before answering settlement_pending (the journal keeps the transaction). */
  receiptTimeoutMs: number;
}

const KEY = /^0x[0-9a-fA-F]{64}$/;

function readKey(read: EnvReader, env: Env): `0x${string}` | undefined {
  const file = env.FACILITATOR_KEY_FILE;
  let key = env.FACILITATOR_PRIVATE_KEY?.trim();
  if (file) {
    try {
      key = readFileSync(file, 'utf8').trim();
    } catch (err) {
      read.problems.push(`FACILITATOR_KEY_FILE=${JSON.stringify(file)}: cannot be read (${(err as Error).message})`);
      return undefined;
    }
  }
  if (!key) return undefined;
  const hex = key.startsWith('0x') ? key : `0x${key}`;
  // Never echo the key itself into the problem list (it is logged).
  if (!KEY.test(hex)) {
    read.problems.push(`${file ? 'FACILITATOR_KEY_FILE' : 'FACILITATOR_PRIVATE_KEY'}: must hold a 32-byte hex private key`);
    return undefined;
  }
  return hex as `0x${string}`;
}

export function readChainSettings(read: EnvReader, env: Env, networks: string[]): ChainSettings {
  const privateKey = readKey(read, env);
  const fallback = read.string('CHAIN_RPC_URL', 'http://127.0.0.1:8545', checkUrl(['http:', 'https:']));
  const rpcUrls: Record<string, string> = {};
  for (const network of networks) {
    const chainId = network.slice('eip155:'.length);
    rpcUrls[network] = read.string(`CHAIN_RPC_URL_${chainId}`, fallback, checkUrl(['http:', 'https:']));
  }
  return {
    ...(privateKey ? { privateKey, address: privateKeyToAccount(privateKey).address } : {}),
    rpcUrls,
    confirmations: read.integer('CHAIN_CONFIRMATIONS', 1, 1, 64),
    receiptTimeoutMs: read.integer('CHAIN_RECEIPT_TIMEOUT_MS', 30_000, 1000, 600_000),
  };
}
