import assert from 'node:assert/strict';
import { buildRequirements, dollarsToUnits, isUsdc, PriceConfigError, v1NetworkName } from '../../src/sdk/price.js';
import { isCaip2Network, legacyNetworkNames, toCaip2Network } from '../../src/x402/networks.js';

const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

describe('unit: seller prices', () => {
  it('dollar prices become exact USDC units, without floating point', () => {
    assert.equal(dollarsToUnits('$0.001', 6), 1000n);
    assert.equal(dollarsToUnits('0.1', 6), 100_000n);
    assert.equal(dollarsToUnits('$12', 6), 12_000_000n);
    assert.equal(dollarsToUnits('$0.000001', 6), 1n);
    assert.equal(dollarsToUnits(' $1.10 ', 6), 1_100_000n);
    assert.equal(dollarsToUnits('$90071992547.409930', 6), 90_071_992_547_409_930n, 'beyond 2^53 units, still exact');
  });

  it('refuses prices that are not plain dollar amounts, or finer than the asset', () => {
    for (const bad of ['$0.0000001', '-$1', '$-1', '1e-3', '$.5', 'USD 1', '$1,000', '']) {
      assert.throws(() => dollarsToUnits(bad, 6), PriceConfigError, bad);
    }
  });

  it('requirements: the network\'s USDC by default, with its EIP-712 name and version in extra', () => {
    const requirements = buildRequirements({ price: '$0.01', payTo: PAY_TO });
    assert.deepEqual(requirements, {
      scheme: 'exact', network: 'eip155:84532', asset: BASE_SEPOLIA_USDC, amount: '10000', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' },
    });
    assert.equal(buildRequirements({ price: '$1', payTo: PAY_TO, network: 'base' }).extra.name, 'USD Coin');
  });

  it('an amount in the smallest unit, for any asset; upto keeps it as the ceiling', () => {
    const requirements = buildRequirements({ amount: 123n, asset: '0x1111111111111111111111111111111111111111', payTo: PAY_TO, network: 'base-sepolia', scheme: 'upto', extra: { name: 'T', version: '1' } });
    assert.equal(requirements.amount, '123');
    assert.equal(requirements.scheme, 'upto');
    assert.deepEqual(requirements.extra, { name: 'T', version: '1' });
    assert.equal(buildRequirements({ amount: 5, payTo: PAY_TO }).amount, '5');
  });

  it('refuses a configuration that cannot be paid, saying what is missing', () => {
    const problems: Array<[Parameters<typeof buildRequirements>[0], RegExp]> = [
      [{ price: '$1' }, /payTo/],
      [{ price: '$1', payTo: PAY_TO, network: 'moon' }, /unknown network/],
      [{ price: '$1', payTo: PAY_TO, network: 'eip155:137' }, /no default USDC/],
      [{ price: '$1', payTo: PAY_TO, asset: '0x1111111111111111111111111111111111111111' }, /needs USDC/],
      [{ amount: '1.5', payTo: PAY_TO }, /integer in the smallest unit/],
      [{ amount: '007', payTo: PAY_TO }, /integer/],
      [{ payTo: PAY_TO }, /price .* or amount/],
    ];
    for (const [options, message] of problems) assert.throws(() => buildRequirements(options), (err: unknown) => err instanceof PriceConfigError && message.test(err.message), JSON.stringify(options));
  });

  it('the web catalog shows USDC prices in dollars: recognises USDC by the network\'s address only', () => {
    assert.equal(isUsdc('eip155:84532', BASE_SEPOLIA_USDC.toLowerCase()), true);
    assert.equal(isUsdc('eip155:8453', BASE_SEPOLIA_USDC), false, 'the testnet address is not USDC on mainnet');
    // A symbol is a claim anybody can write: what maxUsd compares, and the web shows in dollars, is the token itself.
    assert.equal(isUsdc('eip155:1', 'usdc'), false);
  });
});

describe('unit: network names', () => {
  it('CAIP-2 passes as is (trimmed); legacy names are mapped case-insensitively', () => {
    assert.equal(toCaip2Network(' eip155:84532 '), 'eip155:84532');
    assert.equal(toCaip2Network('BASE-SEPOLIA'), 'eip155:84532');
    assert.equal(toCaip2Network('solana'), 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  });

  it('an unknown name, or a key of Object.prototype, is unknown rather than a crash', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'mainnet', '']) assert.equal(toCaip2Network(name), undefined, name);
    assert.equal(toCaip2Network(42 as never), undefined);
  });

  it('CAIP-2 syntax: a 3-8 character namespace and a 1-32 character reference', () => {
    assert.equal(isCaip2Network('eip155:1'), true);
    assert.equal(isCaip2Network('ab:1'), false);
    assert.equal(isCaip2Network('eip155:'), false);
    assert.equal(isCaip2Network(`eip155:${'1'.repeat(33)}`), false);
    assert.equal(isCaip2Network('EIP155:1'), false);
  });

  it('every legacy name round-trips through its CAIP-2 id to a v1 name that maps back to it', () => {
    for (const name of legacyNetworkNames()) {
      const caip2 = toCaip2Network(name)!;
      assert.equal(toCaip2Network(v1NetworkName(caip2)), caip2, name);
    }
    assert.equal(v1NetworkName('eip155:84532'), 'base-sepolia');
    assert.equal(v1NetworkName('eip155:999999'), 'eip155:999999', 'no v1 name: the CAIP-2 id');
  });
});
