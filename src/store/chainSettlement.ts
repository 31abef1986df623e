/**
 * The chain settlement adapter (issue 44) from the configuration and the Redis adapters it keeps
 * its journal and sender lock in: at the store root because it joins store/evm and store/redis.
 * Undefined without a facilitator key: then no network is offered (facilitator/index.ts warns).
 */
import type { Config } from '../config/index.js';
import { chainClients } from './evm/chainClients.js';
import { ChainAdapter } from './evm/chainAdapter.js';
import { TransactionSender } from './evm/sender.js';
import type { RedisStores } from './redis/redisStores.js';

export function chainAdapterFor(config: Pick<Config, 'chain' | 'facilitatorNetworks'>, redis: RedisStores): ChainAdapter | undefined {
  const { privateKey } = config.chain;
  if (!privateKey) return undefined;
  const clients = chainClients({ ...config.chain, privateKey }, config.facilitatorNetworks);
  const journal = redis.txJournal();
  return new ChainAdapter(clients, new TransactionSender(clients.account, redis.senderLock(), journal), journal);
}
