/**
 * The chain clients of the facilitator (issue 44): per configured network one viem public client
 * (reads, simulation, receipts) on its JSON-RPC URL and the facilitator's local account, which
 * signs transactions in process (no node-side wallet, so the same code runs on a dev node and
 * on a public RPC such as Base Sepolia's). store/evm is the only holder of these clients.
 */
import { createPublicClient, defineChain, http, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { ChainSettings } from '../../config/chainSettings.js';

export interface NetworkClient {
  /** CAIP-2 */
  network: string;
  chainId: number;
  client: PublicClient;
}

export interface ChainClients {
  account: PrivateKeyAccount;
  networks: Map<string, NetworkClient>;
  confirmations: number;
  receiptTimeoutMs: number;
}

/**
 * Receipts are polled this often: a dev node mines at once and a public L2 every ~2 s, so viem's
 * default of 4 s would add seconds to every settlement.
 */
const POLLING_MS = 200;

export function chainClients(settings: ChainSettings & { privateKey: `0x${string}` }, networks: string[]): ChainClients {
  const account = privateKeyToAccount(settings.privateKey);
  const map = new Map<string, NetworkClient>();
  for (const network of networks) {
    const chainId = Number(network.slice('eip155:'.length));
    const url = settings.rpcUrls[network]!;
    const chain = defineChain({ id: chainId, name: network, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
    const client = createPublicClient({ chain, transport: http(url, { retryCount: 1, timeout: 10_000 }), pollingInterval: POLLING_MS });
    map.set(network, { network, chainId, client: client as PublicClient });
  }
  return { account, networks: map, confirmations: settings.confirmations, receiptTimeoutMs: settings.receiptTimeoutMs };
}
