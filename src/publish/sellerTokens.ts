/**
 * Seller tokens (README "Operating", `npm run tokens`; docs/sdk.md): issued by an operator, bound to hosts,
 * listed and revoked. The token itself is shown once at issue; Redis keeps only its sha256, so a
 * leaked Redis dump does not let anyone publish.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '../core/clients.js';
import { systemClock, type Clock } from '../core/clock.js';
import { redisKeys, type RedisKeys } from '../store/redis/redisKeys.js';
import { replicated } from '../store/redis/client.js';
import { normalizeBoundHost } from './hostBinding.js';

/** Recognisable prefix so a leaked token is easy to spot in logs and secret scanners. */
export const SELLER_TOKEN_PREFIX = 'pdsk_';
const TOKEN_PATTERN = /^pdsk_[A-Za-z0-9_-]{43}$/;

export interface SellerToken {
  /** Public identifier (`tok_...`): the `owner` of the listings it publishes. */
  id: string;
  label?: string;
  hosts: string[];
  createdAt: string;
  revokedAt?: string;
}

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
  private readonly keys: RedisKeys;
  /** Bumped by every issue and revoke of this instance, so caches of the token list (BoundHosts) notice at once. */
  version = 0;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.keys = redisKeys(prefix);
  }

  private recordKey(id: string): string {
    return this.keys.sellerToken(id);
  }

  private hashKey(hash: string): string {
    return this.keys.sellerTokenByHash(hash);
  }

  private get indexKey(): string {
    return this.keys.sellerTokens;
  }

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
    const hash = hashSellerToken(secret);
    await this.redis
      .multi()
      .hset(this.recordKey(token.id), {
        id: token.id,
        hosts: JSON.stringify(token.hosts),
        createdAt: token.createdAt,
        hash,
        ...(label !== undefined ? { label } : {}),
      })
      .set(this.hashKey(hash), token.id)
      .zadd(this.indexKey, Date.parse(token.createdAt), token.id)
      .exec();
    await replicated(this.redis, this.indexKey);
    this.version += 1;
    return { token, secret };
  }

  /** Resolves a presented bearer secret to its token, refusing unknown and revoked ones. */
  async authenticate(secret: string): Promise<TokenCheck> {
    if (!TOKEN_PATTERN.test(secret)) return { ok: false, reason: 'malformed' };
    const id = await this.redis.get(this.hashKey(hashSellerToken(secret)));
    if (!id) return { ok: false, reason: 'unknown' };
    const token = await this.get(id);
    if (!token) return { ok: false, reason: 'unknown' };
    if (token.revokedAt) return { ok: false, reason: 'revoked' };
    return { ok: true, token };
  }

  async get(id: string): Promise<SellerToken | undefined> {
    const fields = await this.redis.hgetall(this.recordKey(id));
    return fields.id ? toToken(fields) : undefined;
  }

  /** Every token, oldest first; never the secret (it is not stored). */
  async list(): Promise<SellerToken[]> {
    const ids = await this.redis.zrange(this.indexKey, 0, -1);
    const tokens = await Promise.all(ids.map((id) => this.get(id)));
    return tokens.filter((t): t is SellerToken => t !== undefined);
  }

  /** Idempotent: revoking twice keeps the first revocation time. Returns undefined for an unknown id. */
  async revoke(id: string): Promise<SellerToken | undefined> {
    const key = this.recordKey(id);
    if (!(await this.redis.exists(key))) return undefined;
    await this.redis.hsetnx(key, 'revokedAt', new Date(this.clock()).toISOString());
    this.version += 1;
    return this.get(id);
  }
}

function toToken(fields: Record<string, string>): SellerToken {
  let hosts: string[] = [];
  try {
    const parsed: unknown = JSON.parse(fields.hosts ?? '[]');
    if (Array.isArray(parsed)) hosts = parsed.filter((h): h is string => typeof h === 'string');
  } catch {
    // A damaged record binds no host: it can authenticate but never publish.
  }
  const token: SellerToken = { id: fields.id!, hosts, createdAt: fields.createdAt ?? '' };
  if (fields.label) token.label = fields.label;
  if (fields.revokedAt) token.revokedAt = fields.revokedAt;
  return token;
}
