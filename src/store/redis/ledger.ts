/**
 * The test-network ledger in Redis: token balances per (network, asset, address), used nonces, and
 * the sponsor's native-currency balance that pays each settlement's simulated network fee. A
 * settlement is one Lua script, so the nonce check, the balance checks and the movements are atomic.
 */
import { redisKeys, type RedisKeys } from './redisKeys.js';
import { replicated, scanKeys, type RedisClient } from './client.js';

/** What a valid payment would move on the ledger, produced by a scheme check. */
export interface Transfer {
  /** CAIP-2 */
  network: string;
  asset: string;
  from: string;
  to: string;
  /** Smallest unit of the asset: the authorized value (exact) or the amount charged (upto). */
  amount: bigint;
  /** Where the nonce lives: EIP-3009 nonces are per token and authorizer, Permit2 nonces per owner. */
  nonceSpace: string;
  nonce: string;
}

/** Redis integers are int64; nobody can hold more, so a larger amount is simply unaffordable. */
export const MAX_LEDGER_AMOUNT = 9_223_372_036_854_775_807n;

export type SettleOutcome = 'ok' | 'nonce_used' | 'insufficient_funds' | 'sponsor_insufficient_funds';

// Amounts are compared as decimal strings: Lua numbers are doubles and lose precision past 2^53.
const SETTLE_SCRIPT = `
local function lt(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 'nonce_used' end
if redis.call('EXISTS', KEYS[4]) == 0 then redis.call('SET', KEYS[4], ARGV[4]) end
local balance = redis.call('GET', KEYS[1]) or '0'
if lt(balance, ARGV[2]) then return 'insufficient_funds' end
if lt(redis.call('GET', KEYS[4]), ARGV[3]) then return 'sponsor_insufficient_funds' end
redis.call('SADD', KEYS[3], ARGV[1])
if ARGV[2] ~= '0' then
  redis.call('DECRBY', KEYS[1], ARGV[2])
  redis.call('INCRBY', KEYS[2], ARGV[2])
end
if ARGV[3] ~= '0' then redis.call('DECRBY', KEYS[4], ARGV[3]) end
if ARGV[5] ~= '' then redis.call('SET', KEYS[5], ARGV[5], 'EX', ARGV[6]) end
return 'ok'
`;

/** Written in the same script as the movement, so a settlement and its receipt exist together or not at all. */
export interface SettlementRecord {
  key: string;
  value: string;
  ttlSeconds: number;
}

export interface LedgerState {
  nonceUsed: boolean;
  balance: bigint;
  /** What the fee sponsor of the transfer's network holds (the initial balance before its first use). */
  sponsorBalance: bigint;
}

export class Ledger {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly sponsorInitialWei: bigint,
  ) {
    this.keys = redisKeys(prefix);
  }

  balanceKey(network: string, asset: string, address: string): string {
    return this.keys.ledgerBalance(network, asset, address);
  }

  private nonceKey(network: string, nonceSpace: string): string {
    return this.keys.ledgerNonces(network, nonceSpace);
  }

  private sponsorKey(network: string): string {
    return this.keys.ledgerSponsor(network);
  }

  /** Nonce, payer balance and sponsor balance in one round trip (the read-only checks of /verify). */
  async inspect(transfer: Transfer): Promise<LedgerState> {
    const results = await this.redis
      .pipeline()
      .sismember(this.nonceKey(transfer.network, transfer.nonceSpace), transfer.nonce)
      .get(this.balanceKey(transfer.network, transfer.asset, transfer.from))
      .get(this.sponsorKey(transfer.network))
      .exec();
    const [nonce, balance, sponsor] = results ?? [];
    const failed = [nonce, balance, sponsor].find((entry) => entry?.[0]);
    if (failed) throw failed[0];
    return {
      nonceUsed: nonce?.[1] === 1,
      balance: BigInt((balance?.[1] as string | null) ?? '0'),
      sponsorBalance: BigInt((sponsor?.[1] as string | null) ?? this.sponsorInitialWei),
    };
  }

  /**
   * Consumes the nonce and moves `amount` from payer to payee and `feeWei` out of the sponsor, and
   * stores `record` (the settlement's result), or does none of it.
   */
  async settle(transfer: Transfer, feeWei: bigint, record?: SettlementRecord): Promise<SettleOutcome> {
    if (transfer.amount > MAX_LEDGER_AMOUNT) return 'insufficient_funds';
    const outcome = await this.redis.eval(
      SETTLE_SCRIPT,
      5,
      this.balanceKey(transfer.network, transfer.asset, transfer.from),
      this.balanceKey(transfer.network, transfer.asset, transfer.to),
      this.nonceKey(transfer.network, transfer.nonceSpace),
      this.sponsorKey(transfer.network),
      record?.key ?? this.sponsorKey(transfer.network),
      transfer.nonce,
      transfer.amount.toString(),
      feeWei.toString(),
      this.sponsorInitialWei.toString(),
      record?.value ?? '',
      record?.ttlSeconds ?? 0,
    );
    await replicated(this.redis, this.sponsorKey(transfer.network));
    return outcome as SettleOutcome;
  }

  async balance(network: string, asset: string, address: string): Promise<bigint> {
    return BigInt((await this.redis.get(this.balanceKey(network, asset, address))) ?? '0');
  }

  /** Faucet: credits a test wallet. Throws when the result would not fit the ledger (int64). */
  async fund(network: string, asset: string, address: string, amount: bigint): Promise<bigint> {
    return BigInt(await this.redis.incrby(this.balanceKey(network, asset, address), amount.toString()));
  }

  /** Sponsor balance in wei; an untouched ledger reports (and is seeded with) the initial balance. */
  async sponsorBalance(network: string): Promise<bigint> {
    await this.redis.set(this.sponsorKey(network), this.sponsorInitialWei.toString(), 'NX');
    return BigInt((await this.redis.get(this.sponsorKey(network))) ?? '0');
  }

  async fundSponsor(network: string, wei: bigint): Promise<bigint> {
    await this.redis.set(this.sponsorKey(network), this.sponsorInitialWei.toString(), 'NX');
    return BigInt(await this.redis.incrby(this.sponsorKey(network), wei.toString()));
  }

  /** Every funded (asset, address) on a network with its balance, for the faucet's `balances` listing. */
  async balances(network: string): Promise<Array<{ asset: string; address: string; balance: bigint }>> {
    const pattern = this.keys.ledgerBalancesOf(network);
    const out: Array<{ asset: string; address: string; balance: bigint }> = [];
    // The balances share the ledger's hash slot, so one MGET per batch is answered by one server.
    await scanKeys(this.redis, pattern, async (keys) => {
      const values = await this.redis.mget(...keys);
      keys.forEach((key, i) => {
        const [asset, address] = key.slice(pattern.length - 1).split(':');
        if (asset && address) out.push({ asset, address, balance: BigInt(values[i] ?? '0') });
      });
    }, 500);
    return out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  }
}
