/**
 * Fixed-window rate limits counted in Redis, so every instance of the service shares one budget
 * per client. Reusable: each route passes its rule and how to key a request (client address by
 * default; publish keys by seller token). Redis trouble never takes the API down: the limiter
 * lets the request through and logs a warning (at most once a minute).
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { Router, type Request, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { RateLimitRule, RateLimitSettings } from '../config.js';
import type { Logger } from '../logger.js';
import { unmapIPv4 } from '../ingest/addressPolicy.js';
import { ProblemError } from './problem.js';

export interface RateLimitOptions {
  redis: Redis;
  /** config.redisPrefix: every key lives under it. */
  prefix: string;
  /** Names the budget (`announce`, `publish-token`, ...); requests of one name share it. */
  name: string;
  rule: RateLimitRule;
  logger: Logger;
  /** The budget a request draws on; `undefined` skips limiting (e.g. no token to key by). */
  key?: (req: Request) => string | undefined;
  /** How long Redis may take before the request goes through unlimited. */
  redisTimeoutMs?: number;
  now?: () => number;
}

const COUNT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type CountingRedis = Redis & { rateLimitCount(key: string, ttlMs: number): Promise<number> };

/**
 * The budget of a client address. IPv6 clients are counted per /64 (one subscriber's usual
 * allocation), or anyone with a prefix could rotate addresses to escape the limit.
 */
export function clientAddress(req: Request): string {
  const address = unmapIPv4(req.ip ?? req.socket.remoteAddress ?? 'unknown');
  return isIPv6(address) ? `${ipv6Prefix64(address)}::/64` : address;
}

function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.slice(0, 4).map((g) => (parseInt(g || '0', 16) || 0).toString(16)).join(':');
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  const { rule, logger } = options;
  if (!('rateLimitCount' in options.redis)) options.redis.defineCommand('rateLimitCount', { numberOfKeys: 1, lua: COUNT });
  const redis = options.redis as CountingRedis;
  const keyOf = options.key ?? clientAddress;
  const now = options.now ?? Date.now;
  const timeoutMs = options.redisTimeoutMs ?? 250;
  let lastWarning = 0;

  return async (req, res, next) => {
    const subject = keyOf(req);
    if (subject === undefined) return next();
    const at = now();
    const window = Math.floor(at / rule.windowMs);
    const resetAt = (window + 1) * rule.windowMs;
    let count: number;
    try {
      count = await withTimeout(
        redis.rateLimitCount(`${options.prefix}ratelimit:${options.name}:${window}:${subject}`, rule.windowMs + 1000),
        timeoutMs,
      );
    } catch (err) {
      if (at - lastWarning > 60_000) {
        lastWarning = at;
        logger.warn('rate limit skipped: Redis did not answer, failing open', { limit: options.name, err: (err as Error).message });
      }
      return next();
    }
    const retryAfter = Math.max(1, Math.ceil((resetAt - at) / 1000));
    res.setHeader('RateLimit-Limit', String(rule.limit));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, rule.limit - count)));
    res.setHeader('RateLimit-Reset', String(retryAfter));
    if (count > rule.limit) return next(rateLimited(rule, retryAfter));
    next();
  };
}

/** The 429 problem of a spent budget; also thrown by limits counted inside services (the facilitator's per-payer limit). */
export function rateLimited(rule: RateLimitRule, retryAfterSeconds: number, what = 'requests'): ProblemError {
  return new ProblemError(429, 'rate_limited', `Too many ${what}: at most ${rule.limit} per ${rule.windowMs / 1000} s. Retry in ${retryAfterSeconds} s.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    limit: rule.limit,
    windowSeconds: rule.windowMs / 1000,
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The budget key of a bearer token: a hash, so raw seller tokens never appear in Redis keys.
 * `undefined` without a token (the per-address limit still applies).
 */
export function bearerTokenKey(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.header('authorization') ?? '');
  return match ? createHash('sha256').update(match[1]!).digest('hex').slice(0, 32) : undefined;
}

/**
 * Limits that sit in front of other modules' routes, mounted before them: reads (off unless the
 * operator sets RATE_LIMIT_READS) and publish per client address. Publish per token is applied by
 * the publish router itself with `bearerTokenKey`.
 */
export function edgeRateLimits(options: { redis: Redis; prefix: string; rules: RateLimitSettings; logger: Logger }): Router {
  const router = Router();
  const { redis, prefix, rules, logger } = options;
  if (rules.reads) {
    const limiter = rateLimit({ redis, prefix, name: 'reads', rule: rules.reads, logger });
    router.get(READ_PATHS, limiter);
    // MCP discovery tools are catalog reads too, on the same budget.
    router.post('/mcp', limiter);
  }
  if (rules.publish) {
    const limiter = rateLimit({ redis, prefix, name: 'publish', rule: rules.publish, logger });
    router.post('/discovery/publish', limiter);
    router.delete('/discovery/publish/:id', limiter);
  }
  return router;
}

const READ_PATHS = ['/discovery/search', '/discovery/resources', '/discovery/resources/:id', '/mcp/tools', '/x402/discovery/search', '/x402/discovery/resources'];
