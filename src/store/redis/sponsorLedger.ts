/**
 * What the fee sponsor paid for, in Redis (src/facilitator/sponsorship.ts decides with it): per UTC
 * day the fees paid for each payer and each payee (sorted sets, so /metrics reads the top
 * spenders), the circular payments sponsored per payer, and for each address who paid it recently,
 * directly (`1|payer`) or through one or two others (`2|…`, `3|…`), scored by when: a payment to
 * someone who funded its payer within the window returns value in a circle. One slot (`{sponsor}`);
 * one read-only script checks a payment, one records it once it moved, and one charges only the fee
 * of a transaction that was mined and reverted (gas burned, nothing moved: no funder edge). Bounded: the
 * funder sets keep their newest FUNDERS_KEPT and expire with the window, the day sets after two days.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** Funders kept per address: enough for any short chain, bounded for a seller paid by thousands. */
export const FUNDERS_KEPT = 64;
/** A chain of this many payments back to the payer is circular (A->B->C->A is 3). */
export const CHAIN_DEPTH = 3;
const DAY_SETS_TTL_SECONDS = 2 * 86_400;

export interface SponsorCheck {
  payer: string;
  payee: string;
  day: number;
  now: number;
  windowMs: number;
  feeWei: bigint;
  payerBudgetWei: bigint;
  payeeBudgetWei: bigint;
  circularAllowance: number;
  /**
   * Near the floor: a payer whose value came back in a circle, or reached it through other sponsored
   * payments within the window (a wallet that passes value on), is refused outright.
   */
  reserve: boolean;
}

export type SponsorVerdict = 'ok' | 'payer_budget' | 'payee_budget' | 'circular' | 'reserve';

// KEYS: payer spent, payee spent, funders of payer, circular. ARGV: payer, payee, now, window, fee,
// payer budget, payee budget, allowance, reserve (0/1), depth. Scores are wei as doubles: exact
// enough to compare with a budget (a rounding of a few wei in 10^16).
const CHECK = `
local payer, payee = ARGV[1], ARGV[2]
local since = tonumber(ARGV[3]) - tonumber(ARGV[4])
local fee = tonumber(ARGV[5])
local circular = 0
for d = 1, tonumber(ARGV[10]) do
  local at = redis.call('ZSCORE', KEYS[3], d .. '|' .. payee)
  if at and tonumber(at) > since then circular = 1 end
end
local circles = tonumber(redis.call('ZSCORE', KEYS[4], payer) or '0')
if ARGV[9] == '1' then
  -- Passed on: this payer was itself paid through the sponsor within the window.
  local passed = #redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, '+inf', 'LIMIT', 0, 1) > 0
  if circles > 0 or circular == 1 or passed then return {'reserve', circular} end
end
if tonumber(redis.call('ZSCORE', KEYS[1], payer) or '0') + fee > tonumber(ARGV[6]) then return {'payer_budget', circular} end
if tonumber(redis.call('ZSCORE', KEYS[2], payee) or '0') + fee > tonumber(ARGV[7]) then return {'payee_budget', circular} end
if circular == 1 and circles >= tonumber(ARGV[8]) then return {'circular', 1} end
return {'ok', circular}`;

// KEYS: payer spent, payee spent, funders of payer, funders of payee, circular. ARGV: payer, payee,
// fee, now, window, circular (0/1), kept, day ttl, depth.
const RECORD = `
local payer, payee = ARGV[1], ARGV[2]
local now, window = tonumber(ARGV[4]), tonumber(ARGV[5])
local since = now - window
redis.call('ZINCRBY', KEYS[1], ARGV[3], payer)
redis.call('EXPIRE', KEYS[1], ARGV[8])
redis.call('ZINCRBY', KEYS[2], ARGV[3], payee)
redis.call('EXPIRE', KEYS[2], ARGV[8])
if ARGV[6] == '1' then
  redis.call('ZINCRBY', KEYS[5], 1, payer)
  redis.call('EXPIRE', KEYS[5], ARGV[8])
end
redis.call('ZADD', KEYS[4], 'GT', now, '1|' .. payer)
local upstream = redis.call('ZRANGEBYSCORE', KEYS[3], since, '+inf', 'WITHSCORES')
for i = 1, #upstream, 2 do
  local sep = string.find(upstream[i], '|', 1, true)
  local d = tonumber(string.sub(upstream[i], 1, sep - 1))
  local who = string.sub(upstream[i], sep + 1)
  if d < tonumber(ARGV[9]) and who ~= payee then redis.call('ZADD', KEYS[4], 'GT', upstream[i + 1], (d + 1) .. '|' .. who) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', since)
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[7])
if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[4], 0, over - 1) end
redis.call('PEXPIRE', KEYS[4], window)
return 1`;

// KEYS: payer spent, payee spent. ARGV: payer, payee, fee, day ttl. A reverted settlement's gas: the
// budgets are charged, and nothing else (no value moved, so nobody funded anybody).
const RECORD_FEE = `
redis.call('ZINCRBY', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZINCRBY', KEYS[2], ARGV[3], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1`;

type SponsorRedis = RedisClient & {
  sponsorRecordFee(...args: Array<string | number>): Promise<number>;
  sponsorCheck(...args: Array<string | number>): Promise<[SponsorVerdict, number]>;
  sponsorRecord(...args: Array<string | number>): Promise<number>;
};

export class SponsorLedger {
  private readonly keys: RedisKeys;
  private readonly redis: SponsorRedis;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
    if (!('sponsorCheck' in redis)) {
      redis.defineCommand('sponsorCheck', { numberOfKeys: 4, lua: CHECK });
      redis.defineCommand('sponsorRecord', { numberOfKeys: 5, lua: RECORD });
      redis.defineCommand('sponsorRecordFee', { numberOfKeys: 2, lua: RECORD_FEE });
    }
    this.redis = redis as SponsorRedis;
  }

  /** Would the payment be sponsored (nothing is written), and does it return value in a circle? */
  async check(c: SponsorCheck): Promise<{ verdict: SponsorVerdict; circular: boolean }> {
    const payer = c.payer.toLowerCase();
    const payee = c.payee.toLowerCase();
    const [verdict, circular] = await this.redis.sponsorCheck(
      this.keys.sponsorSpent('payer', c.day),
      this.keys.sponsorSpent('payee', c.day),
      this.keys.sponsorFunders(payer),
      this.keys.sponsorCircular(c.day),
      payer,
      payee,
      c.now,
      c.windowMs,
      c.feeWei.toString(),
      c.payerBudgetWei.toString(),
      c.payeeBudgetWei.toString(),
      c.circularAllowance,
      c.reserve ? '1' : '0',
      CHAIN_DEPTH,
    );
    return { verdict, circular: circular === 1 };
  }

  /** A sponsored settlement happened: its fee is spent for its payer and payee, and the payee was funded by the payer. */
  async record(r: { payer: string; payee: string; day: number; now: number; windowMs: number; feeWei: bigint; circular: boolean }): Promise<void> {
    const payer = r.payer.toLowerCase();
    const payee = r.payee.toLowerCase();
    await this.redis.sponsorRecord(
      this.keys.sponsorSpent('payer', r.day),
      this.keys.sponsorSpent('payee', r.day),
      this.keys.sponsorFunders(payer),
      this.keys.sponsorFunders(payee),
      this.keys.sponsorCircular(r.day),
      payer,
      payee,
      r.feeWei.toString(),
      r.now,
      r.windowMs,
      r.circular ? '1' : '0',
      FUNDERS_KEPT,
      DAY_SETS_TTL_SECONDS,
      CHAIN_DEPTH,
    );
  }

  /** A sponsored settlement's transaction was mined and reverted: its gas counts against its payer and payee, nothing else. */
  async recordFee(r: { payer: string; payee: string; day: number; feeWei: bigint }): Promise<void> {
    const payer = r.payer.toLowerCase();
    const payee = r.payee.toLowerCase();
    await this.redis.sponsorRecordFee(this.keys.sponsorSpent('payer', r.day), this.keys.sponsorSpent('payee', r.day), payer, payee, r.feeWei.toString(), DAY_SETS_TTL_SECONDS);
  }

  /** The `count` addresses the sponsor paid most for in one role on `day`, with the wei paid. */
  async top(role: 'payer' | 'payee', day: number, count: number): Promise<Array<{ address: string; wei: number }>> {
    const flat = await this.redis.zrevrange(this.keys.sponsorSpent(role, day), 0, count - 1, 'WITHSCORES');
    const out: Array<{ address: string; wei: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ address: flat[i]!, wei: Number(flat[i + 1]) });
    return out;
  }
}
