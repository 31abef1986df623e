/**
 * In-memory seller-token records, the port SellerTokenStore writes through (the Redis ones are
 * store/redis/sellerTokens.ts, tested against Redis in test/publish.test.ts). The class there has
 * private members, so a structural fake is cast to it: only these public methods are used.
 */
import type { SellerToken, SellerTokenRecords } from '../../../src/store/redis/sellerTokens.js';

export interface FakeSellerTokenRecords {
  records: SellerTokenRecords;
  /** Token ids by the hash stored for them: what a leaked dump would show. */
  hashes: Map<string, string>;
  tokens: Map<string, SellerToken>;
}

export function fakeSellerTokenRecords(): FakeSellerTokenRecords {
  const hashes = new Map<string, string>();
  const tokens = new Map<string, SellerToken>();
  const records = {
    async create(token: SellerToken, hash: string) {
      tokens.set(token.id, structuredClone(token));
      hashes.set(hash, token.id);
    },
    async idOfHash(hash: string) {
      return hashes.get(hash) ?? null;
    },
    async get(id: string) {
      const token = tokens.get(id);
      return token ? structuredClone(token) : undefined;
    },
    async ids() {
      return [...tokens.keys()];
    },
    async exists(id: string) {
      return tokens.has(id);
    },
    async markRevoked(id: string, at: string) {
      const token = tokens.get(id);
      if (token && !token.revokedAt) token.revokedAt = at;
    },
  };
  return { records: records as unknown as SellerTokenRecords, hashes, tokens };
}
