/**
 * The seller token records in Redis (publish/sellerTokens.ts issues, checks and revokes them): one
 * hash per token, the token id under the sha256 of its secret, and an index ordered by creation.
 * The secret itself is never stored.
 */
import { replicated, type RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export interface SellerToken {
  /** Public identifier (`tok_...`): the `owner` of the listings it publishes. */
  id: string;
  label?: string;
  hosts: string[];
  createdAt: string;
  revokedAt?: string;
}

export class SellerTokenRecords {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
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

  /** Stores a new token with the sha256 of its secret, and waits for the replica (an issued token survives a failover). */
  async create(token: SellerToken, hash: string): Promise<void> {
    await this.redis
      .multi()
      .hset(this.recordKey(token.id), {
        id: token.id,
        hosts: JSON.stringify(token.hosts),
        createdAt: token.createdAt,
        hash,
        ...(token.label !== undefined ? { label: token.label } : {}),
      })
      .set(this.hashKey(hash), token.id)
      .zadd(this.indexKey, Date.parse(token.createdAt), token.id)
      .exec();
    await replicated(this.redis, this.indexKey);
  }

  /** The id of the token whose secret has this sha256, if any. */
  idOfHash(hash: string): Promise<string | null> {
    return this.redis.get(this.hashKey(hash));
  }

  async get(id: string): Promise<SellerToken | undefined> {
    const fields = await this.redis.hgetall(this.recordKey(id));
    return fields.id ? toToken(fields) : undefined;
  }

  /** Every token id, oldest first. */
  ids(): Promise<string[]> {
    return this.redis.zrange(this.indexKey, 0, -1);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.recordKey(id))) > 0;
  }

  /** Sets the revocation time unless one is set already. */
  async markRevoked(id: string, at: string): Promise<void> {
    await this.redis.hsetnx(this.recordKey(id), 'revokedAt', at);
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
