// The dev chain's node (scripts/chain.sh). Hardhat only runs the node here: the contracts are
// compiled by scripts/chain-build.ts with solc from npm, so there is no `solidity` entry.
// CommonJS because the project is an ES module package and Hardhat 2 loads its config with require.
module.exports = {
  networks: {
    hardhat: {
      // Base Sepolia's id, the network the service advertises: the x402 packages' defaults
      // (USDC, Permit2 and proxy addresses, EIP-712 chain id) then hold on the dev chain unchanged.
      chainId: Number(process.env.CHAIN_ID || 84532),
      // Each transaction mined as it arrives, as a settle waits for its receipt.
      mining: { auto: true },
      hardfork: 'cancun',
      // Automine gives every block a timestamp after its parent's, so a burst of transactions (a
      // settle benchmark: 600 blocks in 40 s) pushed the chain's clock ten minutes ahead of the wall
      // clock, and then every EIP-3009 authorization (valid for maxTimeoutSeconds, often 60) was
      // "expired" on chain. Blocks of one second may share its timestamp.
      allowBlocksWithSameTimestamp: true,
      // `hardhat node` logs every request and transaction otherwise: megabytes a minute under a
      // settle benchmark. CHAIN_LOG=1 turns it back on (scripts/chain.sh writes .cache/chain-PORT/node.log).
      loggingEnabled: process.env.CHAIN_LOG === '1',
    },
  },
};
