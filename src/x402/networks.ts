/**
 * Network identifiers (docs/catalog-reads.md "Parameters"): the catalog stores CAIP-2 only. x402 v1 clients and
 * sellers still send the legacy names, so every producer maps them through here on the way in.
 */

/**
 * x402 v1 network names -> CAIP-2 (the EVM chain id is the CAIP-2 reference). A Map, because the
 * key comes from clients: on a plain object `__proto__` or `constructor` would find Object's own
 * members (README "Errors": no input reaches a 500).
 */
const LEGACY_NETWORKS: ReadonlyMap<string, string> = new Map(Object.entries({
  base: 'eip155:8453',
  'base-sepolia': 'eip155:84532',
  avalanche: 'eip155:43114',
  'avalanche-fuji': 'eip155:43113',
  polygon: 'eip155:137',
  'polygon-amoy': 'eip155:80002',
  sei: 'eip155:1329',
  'sei-testnet': 'eip155:1328',
  iotex: 'eip155:4689',
  ethereum: 'eip155:1',
  sepolia: 'eip155:11155111',
  optimism: 'eip155:10',
  'optimism-sepolia': 'eip155:11155420',
  arbitrum: 'eip155:42161',
  'arbitrum-sepolia': 'eip155:421614',
  peaq: 'eip155:3338',
  // Solana's CAIP-2 reference is the genesis hash prefix.
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  'solana-devnet': 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
}));

/** CAIP-2: `<namespace>:<reference>`, namespace [-a-z0-9]{3,8}, reference [-_a-zA-Z0-9]{1,32}. */
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

export function isCaip2Network(value: string): boolean {
  return CAIP2.test(value);
}

/**
 * The CAIP-2 form of a network name: CAIP-2 input is returned as is, a known legacy name is mapped
 * (case-insensitively), anything else is `undefined` so the caller can reject it with its own code.
 */
export function toCaip2Network(name: string): string | undefined {
  if (typeof name !== 'string') return undefined;
  const trimmed = name.trim();
  if (isCaip2Network(trimmed)) return trimmed;
  return LEGACY_NETWORKS.get(trimmed.toLowerCase());
}

/** Legacy names this service understands, for error messages and docs. */
export function legacyNetworkNames(): string[] {
  return [...LEGACY_NETWORKS.keys()];
}
