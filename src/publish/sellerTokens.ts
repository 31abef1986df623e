/**
 * Seller tokens (README "Operating", `npm run tokens`; docs/sdk.md): issued by an operator, bound to hosts,
 * listed and revoked. The token itself is shown once at issue; Redis keeps only its sha256, so a
 * leaked Redis dump does not let anyone publish (the records: store/redis/sellerTokens.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../core/clock.js';
import type { SellerToken, SellerTokenRecords } from '../store/redis/sellerTokens.js';
import { normalizeBoundHost } from './hostBinding.js';

export type { SellerToken } from '../store/redis/sellerTokens.js';

/** Recognisable prefix so a leaked token is easy to spot in logs and secret scanners. */
export const SELLER_TOKEN_PREFIX = 'pdsk_';
const TOKEN_PATTERN = /^pdsk_[A-Za-z0-9_-]{43}$/;

export type TokenCheck = { ok: true; token: SellerToken } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' };

export class InvalidTokenRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenRequestError';
  }
}

export function hashSellerToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class SellerTokenStore {
  /** Bumped by every issue and revoke of this instance, so caches of the token list (BoundHosts) notice at once. */
  version = 0;

  constructor(
    private readonly records: SellerTokenRecords,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Creates a token; the returned `secret` is the only copy that will ever exist. */
  async issue(hosts: string[], label?: string): Promise<{ token: SellerToken; secret: string }> {
    if (hosts.length === 0) throw new InvalidTokenRequestError('a token must be bound to at least one host (--host)');
    const normalized: string[] = [];
    for (const host of hosts) {
      const value = normalizeBoundHost(host);
      if (!value) throw new InvalidTokenRequestError(`not a host name: ${JSON.stringify(host)} (expected e.g. api.example.com, 127.0.0.1:8081 or *.example.com)`);
      if (!normalized.includes(value)) normalized.push(value);
    }
    if (label !== undefined && (label.length === 0 || label.length > 100)) {
      throw new InvalidTokenRequestError('--label must be 1-100 characters');
    }
    const secret = `${SELLER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const token: SellerToken = {
      id: `tok_${randomBytes(8).toString('hex')}`,
      hosts: normalized,
      createdAt: new Date(this.clock()).toISOString(),
      ...(label !== undefined ? { label } : {}),
    };
    await this.records.create(token, hashSellerToken(secret));
    this.version += 1;
    return { token, secret };
  }

  /** Resolves a presented bearer secret to its token, refusing unknown and revoked ones. */
  async authenticate(secret: string): Promise<TokenCheck> {
    if (!TOKEN_PATTERN.test(secret)) return { ok: false, reason: 'malformed' };
    const id = await this.records.idOfHash(hashSellerToken(secret));
    if (!id) return { ok: false, reason: 'unknown' };
    const token = await this.get(id);
    if (!token) return { ok: false, reason: 'unknown' };
    if (token.revokedAt) return { ok: false, reason: 'revoked' };
    return { ok: true, token };
  }

  get(id: string): Promise<SellerToken | undefined> {
    return this.records.get(id);
  }

  /** Every token, oldest first; never the secret (it is not stored). */
  async list(): Promise<SellerToken[]> {
    const ids = await this.records.ids();
    const tokens = await Promise.all(ids.map((id) => this.get(id)));
    return tokens.filter((t): t is SellerToken => t !== undefined);
  }

  /** Idempotent: revoking twice keeps the first revocation time. Returns undefined for an unknown id. */
  async revoke(id: string): Promise<SellerToken | undefined> {
    if (!(await this.records.exists(id))) return undefined;
    await this.records.markRevoked(id, new Date(this.clock()).toISOString());
    this.version += 1;
    return this.get(id);
  }
}
