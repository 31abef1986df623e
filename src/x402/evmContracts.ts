/**
 * The contracts the x402 EVM schemes call, at the addresses @x402/evm 2.27 uses on every network
 * (each deployed with CREATE2 at one address everywhere). The network's USDC is in ./usdc.ts. The dev
 * chain (chain/devChain.ts) puts our own builds of these at the same addresses, so the packages'
 * defaults hold there unchanged; test/unit/evmContracts.test.ts checks them against the package.
 */

/** Uniswap's Permit2 (its SignatureTransfer half is what the exact and upto Permit2 paths use). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

/** x402ExactPermit2Proxy: the spender an exact Permit2 payment names; it pays the witness's `to`. */
export const EXACT_PERMIT2_PROXY_ADDRESS = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';

/** x402UptoPermit2Proxy: the upto spender; only the witness's facilitator settles, up to the permit. */
export const UPTO_PERMIT2_PROXY_ADDRESS = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';

/** Multicall3, which the facilitators use to diagnose a failed simulation and for ERC-6492 wallets. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
