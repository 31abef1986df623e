/**
 * The test-network ledger in Redis: token balances per (network, asset, address), used nonces, and
 * the sponsor's native-currency balance that pays each settlement's simulated network fee. A
 * settlement is one Lua script, so the nonce check, the balance checks and the movements are atomic.
 *
 * A used nonce is kept only as long as its authorization could still be settled: until its
 * validBefore (EIP-3009) or deadline (Permit2) plus USED_NONCE_MARGIN_MS, in a sorted set per nonce
 * space scored by that time (trimmed on each settle, the key expiring with its last member). The
 * script itself refuses an authorization whose keep-until time has passed by Redis's clock, so a
 * nonce whose record is gone can never be settled again, whatever the facilitator's clock says.
 * Nonces used before this (a plain set per nonce space, kept forever) still count as used.
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
  /** Epoch seconds after which the authorization cannot be settled (EIP-3009 validBefore, Permit2 deadline). */
  validBefore: bigint;
}

/**
 * How long a used nonce is kept past its authorization's validBefore. Verify and settle refuse a
 * payload from validBefore - 6 s on by the facilitator's clock; the margin covers a facilitator
 * clock behind Redis's (which trims the records). Safety does not rest on it: the settle script
 * refuses anything past its keep-until time by Redis's own clock.
 */
export const USED_NONCE_MARGIN_MS = 5 * 60_000;
/** Keep-until times past this (9999-12-31) are kept forever: PEXPIREAT cannot take them, and a replay must never pass. */
const LATEST_EXPIRY_MS = 253_402_300_799_999n;

/** Redis integers are int64; nobody can hold more, so a larger amount is simply unaffordable. */
export const MAX_LEDGER_AMOUNT = 9_223_372_036_854_775_807n;

/** `expired`: the authorization is past its keep-until time by Redis's clock (its nonce record may be gone). */
export type SettleOutcome = 'ok' | 'nonce_used' | 'expired' | 'insufficient_funds' | 'sponsor_insufficient_funds';

// Amounts are compared as decimal strings: Lua numbers are doubles and lose precision past 2^53.
// KEYS: payer balance, payee balance, legacy used-nonce set, sponsor, result key, used-nonce sorted set.
// ARGV: nonce, amount, fee, sponsor's initial balance, result value, result ttl, keep-until (epoch ms, or 'inf').
const SETTLE_SCRIPT = `
local function lt(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 or redis.call('ZSCORE', KEYS[6], ARGV[1]) then return 'nonce_used' end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if ARGV[7] ~= 'inf' and tonumber(ARGV[7]) <= now then return 'expired' end
if redis.call('EXISTS', KEYS[4]) == 0 then redis.call('SET', KEYS[4], ARGV[4]) end
local balance = redis.call('GET', KEYS[1]) or '0'
if lt(balance, ARGV[2]) then return 'insufficient_funds' end
if lt(redis.call('GET', KEYS[4]), ARGV[3]) then return 'sponsor_insufficient_funds' end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
redis.call('ZADD', KEYS[6], ARGV[7], ARGV[1])
local last = redis.call('ZRANGE', KEYS[6], -1, -1, 'WITHSCORES')[2]
if last == 'inf' then redis.call('PERSIST', KEYS[6]) else redis.call('PEXPIREAT', KEYS[6], last) end
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
    private readonly usedNonceMarginMs = USED_NONCE_MARGIN_MS,
  ) {
    this.keys = redisKeys(prefix);
  }

  balanceKey(network: string, asset: string, address: string): string {
    return this.keys.ledgerBalance(network, asset, address);
  }

  /** Nonces used before they were given an expiry: a set kept forever, read but no longer written. */
  private legacyNonceKey(network: string, nonceSpace: string): string {
    return this.keys.ledgerNonces(network, nonceSpace);
  }

  private nonceKey(network: string, nonceSpace: string): string {
    return this.keys.ledgerUsedNonces(network, nonceSpace);
  }

  /** Until when (epoch ms) the transfer's nonce is kept once used, or 'inf' for an authorization valid past year 9999. */
  private keepUntil(transfer: Transfer): string {
    const at = transfer.validBefore * 1000n + BigInt(this.usedNonceMarginMs);
    return at > LATEST_EXPIRY_MS ? 'inf' : at.toString();
  }

  private sponsorKey(network: string): string {
    return this.keys.ledgerSponsor(network);
  }

  /** Nonce, payer balance and sponsor balance in one round trip (the read-only checks of /verify). */
  async inspect(transfer: Transfer): Promise<LedgerState> {
    const results = await this.redis
      .pipeline()
      .sismember(this.legacyNonceKey(transfer.network, transfer.nonceSpace), transfer.nonce)
      .zscore(this.nonceKey(transfer.network, transfer.nonceSpace), transfer.nonce)
      .get(this.balanceKey(transfer.network, transfer.asset, transfer.from))
      .get(this.sponsorKey(transfer.network))
      .exec();
    const [legacyNonce, nonce, balance, sponsor] = results ?? [];
    const failed = [legacyNonce, nonce, balance, sponsor].find((entry) => entry?.[0]);
    if (failed) throw failed[0];
    return {
      nonceUsed: legacyNonce?.[1] === 1 || nonce?.[1] !== null,
      balance: BigInt((balance?.[1] as string | null) ?? '0'),
      sponsorBalance: BigInt((sponsor?.[1] as string | null) ?? this.sponsorInitialWei),
    };
  }

  /**
   * Consumes the nonce (kept until the authorization's validBefore plus the margin) and moves
   * `amount` from payer to payee and `feeWei` out of the sponsor, and stores `record` (the
   * settlement's result), or does none of it.
   */
  async settle(transfer: Transfer, feeWei: bigint, record?: SettlementRecord): Promise<SettleOutcome> {
    if (transfer.amount > MAX_LEDGER_AMOUNT) return 'insufficient_funds';
    const outcome = await this.redis.eval(
      SETTLE_SCRIPT,
      6,
      this.balanceKey(transfer.network, transfer.asset, transfer.from),
      this.balanceKey(transfer.network, transfer.asset, transfer.to),
      this.legacyNonceKey(transfer.network, transfer.nonceSpace),
      this.sponsorKey(transfer.network),
      record?.key ?? this.sponsorKey(transfer.network),
      this.nonceKey(transfer.network, transfer.nonceSpace),
      transfer.nonce,
      transfer.amount.toString(),
      feeWei.toString(),
      this.sponsorInitialWei.toString(),
      record?.value ?? '',
      record?.ttlSeconds ?? 0,
      this.keepUntil(transfer),
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
