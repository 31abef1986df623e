/**
 * The chain settlements' transaction journal (issue 44; store/evm/sender.ts): per on-chain
 * authorization the signed transaction and its hash, written before the broadcast, so a retry on
 * any gateway answers with that transaction instead of sending another. Kept as long as the
 * settlement results (RESULT_TTL_SECONDS): an authorization is valid for minutes, a replay after
 * the entry expired finds the nonce used on chain.
 */
import type { Hex } from 'viem';
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';
import { RESULT_TTL_SECONDS } from './settlementStore.js';

export interface JournalEntry {
  hash: Hex;
  raw: Hex;
  /** A hash of the signed authorization the transaction settles (store/evm/sender.ts). */
  payment?: Hex;
}

// KEYS: entry. ARGV: entry json, ttl. The existing entry, or nothing when this one was recorded.
const CLAIM = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false`;
// KEYS: entry. ARGV: hash. Deletes the entry only if it still holds that transaction.
const DROP = `
local existing = redis.call('GET', KEYS[1])
if existing and cjson.decode(existing).hash == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

export class TxJournalStore {
  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
  }

  async get(key: string): Promise<JournalEntry | undefined> {
    const stored = await this.redis.get(this.keys.settleTx(key));
    return stored ? (JSON.parse(stored) as JournalEntry) : undefined;
  }

  async claim(key: string, entry: JournalEntry): Promise<JournalEntry | undefined> {
    const existing = (await this.redis.eval(CLAIM, 1, this.keys.settleTx(key), JSON.stringify(entry), RESULT_TTL_SECONDS)) as string | null;
    return existing ? (JSON.parse(existing) as JournalEntry) : undefined;
  }

  async drop(key: string, hash: Hex): Promise<void> {
    await this.redis.eval(DROP, 1, this.keys.settleTx(key), hash);
  }
}
