import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devChainRpcUrl, usdcBalance } from '../chain/devChain.js';

const run = promisify(execFile);

/** `npm run faucet` on the dev node: its command line as before, the money on the chain. */
describe('npm run faucet on the dev chain', function () {
  this.timeout(60_000);
  const faucet = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/faucet.ts', ...args], { env: { ...process.env, CHAIN_RPC_URL: devChainRpcUrl() } });

  it('fund mints test USDC (asset units or --base-units) and gives gas; balance reads them back', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await faucet('fund', address, '2.5');
    await faucet('fund', address, '1500', '--base-units', '--gas', '0.5');
    assert.equal(await usdcBalance(address), 2_501_500n);
    const { stdout } = await faucet('balance', address);
    assert.match(stdout, /2\.5015 USDC \(2501500 base units\), 0\.51 ETH/);
  });

  it('refuses another network, a bad address (usage, exit 2) and a node that is not the dev chain', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await assert.rejects(faucet('fund', address, '1', '--network', 'eip155:8453'), /dev chain only/);
    await assert.rejects(faucet('fund', '0xnot-an-address', '1'), (err: { code?: number; stderr?: string }) => err.code === 2 && /usage/.test(err.stderr ?? ''));
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'scripts/faucet.ts', 'fund', address, '1'], { env: { ...process.env, CHAIN_RPC_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200' } }),
      /faucet:/,
    );
  });
});
