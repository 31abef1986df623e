/**
 * USDC by network: the one asset whose price the catalog can state in dollars (docs/catalog-reads.md
 * "API", Can I pay this?). Each address is the network's USDC as the x402 packages know it: @x402/evm 2.27's
 * DEFAULT_ASSETS (symbol USDC) and, for the x402 v1 networks it no longer lists (Avalanche Fuji,
 * Polygon Amoy, IoTeX, peaq, Solana), the `x402` 1.x package's USDC table.
 * test/unit/usdc.test.ts checks every entry against both packages. A token anywhere else, or an
 * address that merely looks like USDC (a typo), is an unknown asset: no dollar price.
 */

/** USDC has 6 decimals on every network listed here: 1 USD = 1,000,000 base units. */
export const USDC_DECIMALS = 6;

const USDC_ADDRESSES: ReadonlyMap<string, string> = new Map(Object.entries({
  'eip155:1': '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  'eip155:8453': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  'eip155:84532': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  'eip155:43114': '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E',
  'eip155:43113': '0x5425890298aed601595a70AB815c96711a31Bc65',
  'eip155:137': '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  'eip155:80002': '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
  'eip155:42161': '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  'eip155:421614': '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d',
  'eip155:1329': '0xe15fC38F6D8c56aF07bbCBe3BAf5708A2Bf42392',
  'eip155:1328': '0x4fCF1784B31630811181f670Aea7A7bEF803eaED',
  'eip155:4689': '0xcdf79194c6c285077a58da47641d4dbe51f63542',
  'eip155:3338': '0xbbA60da06c2c5424f03f7434542280FCAd453d10',
  'eip155:143': '0x754704Bc059F8C67012fEd69BC8A327a5aafb603',
  'eip155:50': '0xfA2958CB79b0491CC627c1557F441eF849Ca8eb1',
  'eip155:51': '0xb5AB69F7bBada22B28e79C8FFAECe55eF1c771D4',
  'eip155:38833': '0xA5b8BF902b2844dA17d4506cc827F7F1681735E7',
  'eip155:42220': '0xcebA9300f2b948710d2653dD7B07f33A8B32118C',
  'eip155:11142220': '0x01C5C0122039549AD1493B8220cABEdD739BC44E',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
}));

export interface NetworkAsset {
  network: string;
  asset: string;
}

/** The network's USDC address (as its packages spell it), or undefined when the service knows none. */
export function usdcAddress(network: string): string | undefined {
  return USDC_ADDRESSES.get(network);
}

/**
 * Whether `asset` on `network` is USDC. Case-insensitive, as the catalog compares assets everywhere
 * (the index lowercases them): EVM checksum case is not part of the address.
 */
export function isUsdcAsset(network: string, asset: string): boolean {
  return USDC_ADDRESSES.get(network)?.toLowerCase() === asset.toLowerCase();
}

/** Every (network, USDC address) pair the service knows. */
export function knownUsdc(): NetworkAsset[] {
  return [...USDC_ADDRESSES].map(([network, asset]) => ({ network, asset }));
}
