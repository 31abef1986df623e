/**
 * The "can I pay this?" parameters of a catalog read (docs/catalog-reads.md "API", Can I pay this?): `payWith`, the
 * network/asset pairs the buyer holds (repeatable), and `maxUsd`, a price cap in dollars that
 * applies to USDC on every network the service knows. Parsed strictly, like every read parameter.
 */
import type { FieldError } from '../core/errors.js';
import { toCaip2Network } from '../x402/networks.js';
import { USDC_DECIMALS, usdcAddress, type NetworkAsset } from '../x402/usdc.js';

/** More pairs than any wallet holds; bounds the query Elasticsearch gets. */
export const MAX_PAY_WITH = 20;
const MAX_PAIR_LENGTH = 200;
/** A token address or symbol: letters, digits and `-_.` (EVM hex, Solana base58, `USDT`). */
const ASSET = /^[-_.A-Za-z0-9]{1,128}$/;
/** A CAIP-19 asset namespace before the address (`erc20:`, `token:`), which the catalog does not store. */
const ASSET_NAMESPACE = /^[-a-z0-9]{3,8}:/;
/** Dollars with at most USDC's 6 decimals; 12 integer digits keep the cap inside a 64-bit amount. */
const DOLLARS = new RegExp(`^\\$?(\\d{1,12})(?:\\.(\\d{1,${USDC_DECIMALS}}))?$`);

const PAY_WITH_HINT = 'must be network/asset, e.g. eip155:8453/0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 or base/USDC';

function pair(value: unknown, errors: FieldError[]): NetworkAsset | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PAIR_LENGTH) {
    errors.push({ path: 'payWith', message: PAY_WITH_HINT });
    return undefined;
  }
  const slash = value.indexOf('/');
  const network = slash > 0 ? toCaip2Network(value.slice(0, slash)) : undefined;
  const asset = slash > 0 ? value.slice(slash + 1).trim().replace(ASSET_NAMESPACE, '') : '';
  if (network === undefined || !ASSET.test(asset)) {
    errors.push({ path: 'payWith', message: `${PAY_WITH_HINT} (got ${JSON.stringify(value.slice(0, 80))})` });
    return undefined;
  }
  if (asset.toUpperCase() !== 'USDC') return { network, asset };
  const usdc = usdcAddress(network);
  if (usdc === undefined) {
    errors.push({ path: 'payWith', message: `the service knows no USDC on ${network}: give the token address` });
    return undefined;
  }
  return { network, asset: usdc };
}

/** `payWith`: one pair or several (the parameter repeated); duplicates are dropped. */
export function parsePayWith(raw: unknown, errors: FieldError[]): NetworkAsset[] | undefined {
  if (raw === undefined) return undefined;
  const values = Array.isArray(raw) ? raw : [raw];
  if (values.length > MAX_PAY_WITH) {
    errors.push({ path: 'payWith', message: `must be given at most ${MAX_PAY_WITH} times` });
    return undefined;
  }
  const before = errors.length;
  const pairs = new Map<string, NetworkAsset>();
  for (const value of values) {
    const parsed = pair(value, errors);
    if (parsed) pairs.set(`${parsed.network}/${parsed.asset.toLowerCase()}`, parsed);
  }
  return errors.length > before ? undefined : [...pairs.values()];
}

/** `maxUsd` in USDC base units (an integer string), or undefined with the error recorded. */
export function parseMaxUsd(value: string | undefined, errors: FieldError[]): string | undefined {
  if (value === undefined) return undefined;
  const match = DOLLARS.exec(value.trim());
  if (!match) {
    errors.push({ path: 'maxUsd', message: `must be a dollar amount such as 0.005 (at most ${USDC_DECIMALS} decimals, below 10^12)` });
    return undefined;
  }
  const units = BigInt(match[1]!) * 10n ** BigInt(USDC_DECIMALS) + BigInt((match[2] ?? '').padEnd(USDC_DECIMALS, '0'));
  return units.toString();
}
