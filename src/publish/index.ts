/** The publishing module as the container wires it: seller tokens and the publish service. */
import type { Config } from '../config/index.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Stores } from '../store/stores.js';
import { BoundHosts } from './boundHosts.js';
import { PublishService } from './publishService.js';
import { SellerTokenStore } from './sellerTokens.js';
import { OptOutService } from './optOut.js';
import { systemClock } from '../core/clock.js';

export interface Publishing {
  tokens: SellerTokenStore;
  /** Hosts some seller token is bound to (traffic never lists an MCP tool there). */
  boundHosts: BoundHosts;
  service: PublishService;
  /** A seller's opt-out of its own HTTP listing, held against every source until lifted. */
  optOut: OptOutService;
}

export function buildPublishing(config: Config, deps: { stores: Stores; writer: CatalogWriter; reader: CatalogReader }): Publishing {
  const tokens = new SellerTokenStore(deps.stores.redis.sellerTokens());
  const service = new PublishService({ writer: deps.writer, lookup: deps.reader, owners: deps.stores.redis.publishOwners() });
  const optOut = new OptOutService({ optOuts: deps.stores.redis.optOuts(), writer: deps.writer, reader: deps.reader, tokens, clock: systemClock });
  return { tokens, boundHosts: new BoundHosts(tokens), service, optOut };
}

export { SellerTokenStore, type SellerToken } from './sellerTokens.js';
export { PublishService } from './publishService.js';
export { BoundHosts } from './boundHosts.js';
