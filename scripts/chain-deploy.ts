/**
 * Our contracts on the dev chain at CHAIN_RPC_URL (scripts/chain.sh start runs it after the node
 * answers): deploys what is missing or out of date, then prints where everything is.
 */
import { devChainRpcUrl, ensureDevChain, NotADevChain } from '../chain/devChain.js';

const rpcUrl = devChainRpcUrl();
ensureDevChain(rpcUrl)
  .then((chain) => {
    const what = chain.placed.length > 0 ? `placed ${chain.placed.join(', ')}` : 'already in place';
    process.stderr.write(`[chain] contracts ${what}: ${Object.values(chain.contracts).map((c) => `${c.name} ${c.address}`).join(', ')}\n`);
  })
  .catch((err: Error) => {
    // A node that is not a dev node is someone's real network: use it as it is, deploy nothing.
    if (err instanceof NotADevChain) {
      process.stderr.write(`[chain] ${err.message}; leaving it as it is\n`);
      return;
    }
    process.stderr.write(`[chain] ${err.message}\n`);
    process.exit(1);
  });
