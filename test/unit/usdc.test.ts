/**
 * The service's USDC table (src/x402/usdc.ts) against the x402 packages it is taken from: every
 * entry is a USDC the packages list for that network, and every USDC @x402/evm lists is known.
 */
import assert from 'node:assert/strict';
import { DEFAULT_ASSETS } from '@x402/evm';
import { getUsdcChainConfigForChain } from 'x402/shared/evm';
import { knownUsdc, isUsdcAsset, usdcAddress } from '../../src/x402/usdc.js';
import { parseMaxUsd, parsePayWith } from '../../src/search/payableParameters.js';
import type { FieldError } from '../../src/core/errors.js';

const SOLANA_CHAIN_IDS: Record<string, number> = { 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 101, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 103 };

/** The `x402` 1.x package's USDC for a CAIP-2 network (its table is keyed by chain id; Solana: 101, 103). */
function v1Usdc(network: string): string | undefined {
  const chainId = SOLANA_CHAIN_IDS[network] ?? Number(network.replace(/^eip155:/, ''));
  return getUsdcChainConfigForChain(chainId)?.usdcAddress;
}

describe('USDC by network (src/x402/usdc.ts)', () => {
  it('every entry is a USDC of @x402/evm 2.27 or of x402 1.x on that network', () => {
    for (const { network, asset } of knownUsdc()) {
      const evm = (DEFAULT_ASSETS as Record<string, ReadonlyArray<{ asset: string; symbol: string; decimals: number }>>)[network]?.find((a) => a.symbol === 'USDC');
      if (evm) {
        assert.equal(evm.asset.toLowerCase(), asset.toLowerCase(), network);
        assert.equal(evm.decimals, 6);
      } else {
        assert.equal(v1Usdc(network)?.toLowerCase(), asset.toLowerCase(), network);
      }
    }
  });

  it('knows every USDC @x402/evm lists', () => {
    for (const [network, assets] of Object.entries(DEFAULT_ASSETS as Record<string, ReadonlyArray<{ asset: string; symbol: string }>>)) {
      for (const a of assets.filter((x) => x.symbol === 'USDC')) assert.ok(isUsdcAsset(network, a.asset), network);
    }
  });

  it('a mistyped address or a symbol is not USDC', () => {
    assert.equal(isUsdcAsset('eip155:8453', '0x833589fCD6eDb6E08f4c7C8dDAFFa1cF0a2c9aE5'), false);
    assert.equal(isUsdcAsset('eip155:8453', 'USDC'), false);
    assert.equal(isUsdcAsset('eip155:8453', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'), true);
    assert.equal(usdcAddress('eip155:11155111'), undefined);
  });

  it('maxUsd: dollars to USDC base units, exactly', () => {
    const errors: FieldError[] = [];
    assert.equal(parseMaxUsd('0.001', errors), '1000');
    assert.equal(parseMaxUsd('$1', errors), '1000000');
    assert.equal(parseMaxUsd('0.000001', errors), '1');
    assert.equal(parseMaxUsd('999999999999.999999', errors), '999999999999999999');
    assert.deepEqual(errors, []);
    for (const bad of ['', '.5', '1.', '0.0000001', '1e3', '-1', '0x10', '1000000000000', ' 1 2']) {
      const found: FieldError[] = [];
      assert.equal(parseMaxUsd(bad, found), undefined, bad);
      assert.equal(found[0]?.path, 'maxUsd');
    }
  });

  it('payWith: legacy names, USDC by name, CAIP-19 namespaces, duplicates dropped', () => {
    const errors: FieldError[] = [];
    const pairs = parsePayWith(['base/USDC', 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:1/USDT'], errors);
    assert.deepEqual(errors, []);
    assert.deepEqual(pairs, [
      { network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
      { network: 'eip155:1', asset: 'USDT' },
    ]);
    for (const bad of ['base', '/USDC', 'base/', 'nowhere/USDC', 'sepolia/USDC', 'base/0x12 34', `base/${'a'.repeat(200)}`]) {
      const found: FieldError[] = [];
      assert.equal(parsePayWith(bad, found), undefined, bad);
      assert.equal(found[0]?.path, 'payWith', bad);
    }
  });
});
