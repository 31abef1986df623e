/** The publishing module as the container wires it: seller tokens and the publish service. */
import type { Config } from '../config/index.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Stores } from '../store/stores.js';
import { BoundHosts } from './boundHosts.js';
import { PublishService } from './publishService.js';
import { SellerTokenStore } from './sellerTokens.js';

export interface Publishing {
  tokens: SellerTokenStore;
  /** Hosts some seller token is bound to (traffic never lists an MCP tool there). */
  boundHosts: BoundHosts;
  service: PublishService;
}

export function buildPublishing(config: Config, deps: { stores: Stores; writer: CatalogWriter; reader: CatalogReader }): Publishing {
  const tokens = new SellerTokenStore(deps.stores.redis.sellerTokens());
  const service = new PublishService({ writer: deps.writer, lookup: deps.reader, owners: deps.stores.redis.publishOwners() });
  return { tokens, boundHosts: new BoundHosts(tokens), service };
}

export { SellerTokenStore, type SellerToken } from './sellerTokens.js';
export { PublishService } from './publishService.js';
export { BoundHosts } from './boundHosts.js';
