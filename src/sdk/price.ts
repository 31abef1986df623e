/**
 * A seller's price (`{ price: '$0.001' }` or `{ amount: '1000', asset, network, payTo }`) turned
 * into x402 payment requirements. USDC is the default asset; its EIP-712 domain (name, version) is
 * what buyers' wallets sign over, so it travels in `extra` as @x402/evm expects.
 */
import { legacyNetworkNames, toCaip2Network } from '../x402/networks.js';
import { isUsdcAsset } from '../x402/usdc.js';
import type { Scheme } from '../shapes/listing.js';
import type { PaymentRequirements } from '../x402/wire.js';

export type { Scheme };

export interface PriceOptions {
  /** Dollar price for USDC, e.g. `'$0.001'` (6 decimals). Use `amount` for any other asset. */
  price?: string;
  /** Integer amount in the asset's smallest unit (for `upto`, the ceiling). */
  amount?: string | number | bigint;
  /** Token contract address, or `USDC` for the network's USDC. Default USDC. */
  asset?: string;
  /** CAIP-2 (`eip155:84532`) or an x402 v1 name (`base-sepolia`). */
  network?: string;
  /** Receiving address. */
  payTo?: string;
  scheme?: Scheme;
  maxTimeoutSeconds?: number;
  /** Extra requirement members (the token's EIP-712 `name`/`version` when `asset` is an address). */
  extra?: Record<string, unknown>;
}

interface KnownAsset {
  address: string;
  name: string;
  version: string;
  decimals: number;
}

/** USDC per network, as @x402/evm's default asset table has it. */
const USDC: Readonly<Record<string, KnownAsset>> = {
  'eip155:84532': { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6 },
  'eip155:8453': { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
  'eip155:1': { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', name: 'USD Coin', version: '2', decimals: 6 },
  'eip155:43114': { address: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', name: 'USD Coin', version: '2', decimals: 6 },
};

export const DEFAULT_NETWORK = 'eip155:84532';

/**
 * Whether `asset` is the network's USDC (6 decimals): the web catalog shows those prices in USDC,
 * exactly the listings a `maxUsd` cap compares (a symbol or a mistyped address is not USDC).
 */
export function isUsdc(network: string, asset: string): boolean {
  return isUsdcAsset(network, asset);
}

export class PriceConfigError extends Error {
  constructor(message: string) {
    super(`x402 price: ${message}`);
    this.name = 'PriceConfigError';
  }
}

/** `'$0.001'` -> `1000n` for 6 decimals, exactly (no floats). */
export function dollarsToUnits(price: string, decimals: number): bigint {
  const match = /^\$?(\d+)(?:\.(\d+))?$/.exec(price.trim());
  if (!match) throw new PriceConfigError(`price ${JSON.stringify(price)} must look like "$0.001"`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new PriceConfigError(`price ${price} has more than ${decimals} decimals`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** The x402 v1 name of a CAIP-2 network (`eip155:84532` -> `base-sepolia`), or the CAIP-2 id itself. */
export function v1NetworkName(caip2: string): string {
  return legacyNetworkNames().find((name) => toCaip2Network(name) === caip2) ?? caip2;
}

export function buildRequirements(options: PriceOptions): PaymentRequirements {
  const network = toCaip2Network(options.network ?? DEFAULT_NETWORK);
  if (!network) throw new PriceConfigError(`unknown network ${JSON.stringify(options.network)}`);
  if (!options.payTo) throw new PriceConfigError('payTo (the receiving address) is required');
  const usdc = USDC[network];
  const wantsUsdc = options.asset === undefined || options.asset.toUpperCase() === 'USDC';
  if (wantsUsdc && !usdc) throw new PriceConfigError(`no default USDC on ${network}: give asset (address) and extra {name, version}`);
  const known = wantsUsdc ? usdc : Object.values(USDC).find((a) => a.address.toLowerCase() === options.asset!.toLowerCase());

  let amount: bigint;
  if (options.amount !== undefined) {
    const text = String(options.amount);
    if (!/^(0|[1-9]\d*)$/.test(text)) throw new PriceConfigError(`amount ${JSON.stringify(text)} must be an integer in the smallest unit`);
    amount = BigInt(text);
  } else if (options.price !== undefined) {
    if (!known) throw new PriceConfigError('a dollar price needs USDC; give amount for other assets');
    amount = dollarsToUnits(options.price, known.decimals);
  } else {
    throw new PriceConfigError('give price ("$0.001") or amount');
  }
  const extra: Record<string, unknown> = { ...(known ? { name: known.name, version: known.version } : {}), ...options.extra };
  return {
    scheme: options.scheme ?? 'exact',
    network,
    asset: known ? known.address : options.asset!,
    amount: amount.toString(),
    payTo: options.payTo,
    maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
    extra,
  };
}
