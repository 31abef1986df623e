/**
 * Operator faucet for the dev chain (CHAIN_RPC_URL, default http://127.0.0.1:8545; scripts/chain.sh):
 *   npm run faucet -- fund 0xADDRESS 100            # 100 test USDC (6 decimals) minted, plus gas
 *   npm run faucet -- fund 0xADDRESS 2500 --base-units
 *   npm run faucet -- balance 0xADDRESS             # test USDC and ETH on the chain
 *   npm run faucet -- sponsor                       # the facilitator's dev account's gas (ETH): the sponsor's balance
 *   npm run faucet -- sponsor 0.5                   # add 0.5 ETH to it (dev chain only, like every command)
 * Options: --gas ETH (gas given with `fund`, default 0.01), --network eip155:84532 (the only one),
 * --decimals 6. It refuses any node that is not a dev node with the dev chain id: a faucet mints,
 * which only a chain with nothing real on it may allow.
 */
import { formatEther, formatUnits, getAddress, isAddress, parseEther, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEV_FACILITATOR_KEY, DEV_NETWORK, DEV_USDC_ADDRESS, devChainRpcUrl, ensureDevChain, fundBuyer, usdcBalance } from '../chain/devChain.js';
import { fail, parseCommandLine } from '../src/cli/options.js';

const USAGE = `usage:
  faucet fund ADDRESS AMOUNT [--base-units] [--gas ETH] [--decimals N] [--network ${DEV_NETWORK}]
  faucet balance ADDRESS [--decimals N]
  faucet sponsor [ETH]`;

/** Below 2^63 base units: a typo of many digits is refused. */
const MAX_AMOUNT = 2n ** 63n - 1n;

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    {
      allowPositionals: true,
      options: {
        network: { type: 'string' },
        asset: { type: 'string' },
        decimals: { type: 'string' },
        gas: { type: 'string' },
        'base-units': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const [command, ...args] = positionals;
  if (values.help || !command) fail(USAGE, values.help ? 0 : 2);
  if (values.network && values.network !== DEV_NETWORK) fail(`the faucet funds the dev chain only (${DEV_NETWORK}), not ${values.network}`);
  if (values.asset && (!isAddress(values.asset) || getAddress(values.asset) !== DEV_USDC_ADDRESS)) {
    fail(`the faucet mints the dev chain's test USDC only (${DEV_USDC_ADDRESS})`);
  }
  const decimals = Number(values.decimals ?? '6');
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) fail('--decimals must be an integer between 0 and 36');
  const show = (amount: bigint) => `${formatUnits(amount, decimals)} USDC (${amount} base units)`;
  const ether = (text: string, what: string) => {
    try {
      const wei = parseEther(text);
      if (wei < 0n) throw new Error('negative');
      return wei;
    } catch {
      fail(`${what} must be a decimal amount of ETH, got ${text}`);
    }
  };
  const rpcUrl = devChainRpcUrl();
  // Refuses a node that is not the dev chain before anything is read or sent.
  const chain = await ensureDevChain(rpcUrl);

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
      if (amount <= 0n || amount > MAX_AMOUNT) fail('AMOUNT must be positive and below 2^63 base units');
      const gas = ether(values.gas ?? '0.01', '--gas');
      const funded = await fundBuyer(address, amount, gas, rpcUrl);
      process.stdout.write(`funded ${funded.address} on ${DEV_NETWORK}: +${show(amount)} (mint ${funded.mintTransaction}), +${formatEther(gas)} ETH; balance ${show(funded.usdc)}, ${formatEther(funded.wei)} ETH\n`);
      break;
    }
    case 'balance': {
      const [address] = args;
      if (!address || !isAddress(address)) fail(USAGE);
      const wei = await chain.client.getBalance({ address: getAddress(address) });
      process.stdout.write(`${getAddress(address)} on ${DEV_NETWORK}: ${show(await usdcBalance(address, rpcUrl))}, ${formatEther(wei)} ETH\n`);
      break;
    }
    case 'sponsor': {
      const sponsor = privateKeyToAccount(DEV_FACILITATOR_KEY).address;
      const [ethText] = args;
      if (ethText !== undefined) {
        const wei = ether(ethText, 'ETH');
        if (wei <= 0n) fail('ETH must be positive');
        await fundBuyer(sponsor, 0n, wei, rpcUrl);
      }
      process.stdout.write(`sponsor (the facilitator's dev account ${sponsor}) on ${DEV_NETWORK}: ${formatEther(await chain.client.getBalance({ address: sponsor }))} ETH\n`);
      break;
    }
    default:
      fail(`unknown command ${command}\n${USAGE}`);
  }
}

main().catch((err) => {
  process.stderr.write(`faucet: ${(err as Error).message}\n`);
  process.exit(1);
});
