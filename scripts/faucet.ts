/**
 * Operator faucet for the test-network ledger (same REDIS_URL / REDIS_PREFIX as the service):
 *   npm run faucet -- fund 0xADDRESS 100            # 100 USDC (asset units, 6 decimals by default)
 *   npm run faucet -- fund 0xADDRESS 2500 --base-units
 *   npm run faucet -- balance 0xADDRESS
 *   npm run faucet -- balances                      # every funded wallet on the network
 *   npm run faucet -- sponsor                       # show the fee sponsor balance (ETH)
 *   npm run faucet -- sponsor 0.5                   # add 0.5 ETH to the fee sponsor
 * Options: --network eip155:84532 (default: the first of FACILITATOR_NETWORKS), --asset 0xTOKEN
 * (default: USDC on Base Sepolia), --decimals 6.
 */
import { formatEther, formatUnits, getAddress, isAddress, parseEther, parseUnits } from 'viem';
import { Ledger, MAX_LEDGER_AMOUNT } from '../src/store/redis/ledger.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { fail, loadConfigOrFail, parseCommandLine } from '../src/cli/options.js';

const USAGE = `usage:
  faucet fund ADDRESS AMOUNT [--base-units] [--asset TOKEN] [--decimals N] [--network CAIP2]
  faucet balance ADDRESS [--asset TOKEN] [--decimals N] [--network CAIP2]
  faucet balances [--decimals N] [--network CAIP2]
  faucet sponsor [ETH] [--network CAIP2]`;

/** USDC on Base Sepolia: the asset @x402/evm and x402 v1 price `$` amounts in on eip155:84532. */
const DEFAULT_ASSET = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    {
      allowPositionals: true,
      options: {
        network: { type: 'string' },
        asset: { type: 'string' },
        decimals: { type: 'string' },
        'base-units': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const [command, ...args] = positionals;
  if (values.help || !command) fail(USAGE, values.help ? 0 : 2);

  const config = loadConfigOrFail();
  const network = values.network ?? config.facilitatorNetworks[0]!;
  if (!config.facilitatorNetworks.includes(network)) {
    fail(`network ${network} is not settled by this service (FACILITATOR_NETWORKS=${config.facilitatorNetworks.join(',')})`);
  }
  const asset = values.asset ?? DEFAULT_ASSET;
  if (!isAddress(asset)) fail(`--asset must be a token address, got ${asset}`);
  const decimals = Number(values.decimals ?? '6');
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) fail('--decimals must be an integer between 0 and 36');
  const show = (amount: bigint) => `${formatUnits(amount, decimals)} (${amount} base units)`;

  const redis = createRedisClient(config.redisUrl);
  const ledger = new Ledger(redis, config.redisPrefix, config.sponsorInitialWei);
  try {
    switch (command) {
      case 'fund': {
        const [address, amountText] = args;
        if (!address || !isAddress(address) || !amountText) fail(USAGE);
        let amount: bigint;
        try {
          amount = values['base-units'] ? BigInt(amountText) : parseUnits(amountText, decimals);
        } catch {
          fail(`AMOUNT must be ${values['base-units'] ? 'an integer number of base units' : 'a decimal number of asset units'}, got ${amountText}`);
        }
        if (amount <= 0n || amount > MAX_LEDGER_AMOUNT) fail('AMOUNT must be positive and below 2^63 base units');
        const balance = await ledger.fund(network, asset, address, amount).catch(() => fail('the resulting balance would not fit the ledger (2^63 base units)'));
        process.stdout.write(`funded ${getAddress(address)} on ${network}: +${show(amount)}, balance ${show(balance)}\n`);
        break;
      }
      case 'balance': {
        const [address] = args;
        if (!address || !isAddress(address)) fail(USAGE);
        process.stdout.write(`${getAddress(address)} on ${network}, asset ${asset}: ${show(await ledger.balance(network, asset, address))}\n`);
        break;
      }
      case 'balances': {
        for (const row of await ledger.balances(network)) {
          process.stdout.write(`${getAddress(row.address)}\t${row.asset}\t${show(row.balance)}\n`);
        }
        break;
      }
      case 'sponsor': {
        const [ethText] = args;
        if (ethText !== undefined) {
          let wei: bigint;
          try {
            wei = parseEther(ethText);
          } catch {
            fail(`ETH must be a decimal amount of ETH, got ${ethText}`);
          }
          if (wei <= 0n) fail('ETH must be positive');
          const balance = await ledger.fundSponsor(network, wei).catch(() => fail('the sponsor balance would not fit the ledger'));
          process.stdout.write(`sponsor on ${network}: +${ethText} ETH, balance ${formatEther(balance)} ETH\n`);
        } else {
          process.stdout.write(`sponsor on ${network}: ${formatEther(await ledger.sponsorBalance(network))} ETH\n`);
        }
        break;
      }
      default:
        fail(`unknown command ${command}\n${USAGE}`);
    }
  } finally {
    await redis.quit();
  }
}

main().catch((err) => {
  process.stderr.write(`faucet: ${(err as Error).message}\n`);
  process.exit(1);
});
