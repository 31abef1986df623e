/**
 * Fixed-window rate limits on a shared counter (store/redis/rateLimitCounter.ts, in Redis), so every
 * instance of the service shares one budget per client. Reusable: each route passes its rule and
 * how to key a request (client address by default; publish keys by seller token). Counter trouble
 * never takes the API down: the limiter lets the request through and logs a warning (at most once
 * a minute).
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { Router, type Request, type RequestHandler } from 'express';
import type { RateLimitRule, RateLimitSettings } from '../config/rateLimitSettings.js';
import type { Logger } from '../logger.js';
import { unmapIPv4 } from '../core/ipAddress.js';
import { RateLimited } from '../core/errors.js';
import { PATHS } from './paths.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, HISTORY_MAX_LIMIT } from '../changes/feedRequest.js';
import { SETTLEMENTS_DEFAULT_LIMIT, SETTLEMENTS_PER_PAYEE } from '../facilitator/settlementHistory.js';
import { systemClock, type Clock } from '../core/clock.js';

/** Counts requests per budget name, window and subject (store/redis/rateLimitCounter.ts implements it). */
export interface WindowCounter {
  /** Adds `by` (default 1) to the subject's count in the window and answers the new count. */
  count(name: string, window: number, subject: string, ttlMs: number, by?: number): Promise<number>;
}

export interface RateLimitOptions {
  counter: WindowCounter;
  /** Names the budget (`announce`, `publish-token`, ...); requests of one name share it. */
  name: string;
  rule: RateLimitRule;
  logger: Logger;
  /** The budget a request draws on; `undefined` skips limiting (e.g. no token to key by). */
  key?: (req: Request) => string | undefined;
  /**
   * How many of the budget a request spends (default 1): a request that does the work of several
   * (a JSON-RPC batch of tool calls, a change-feed page of 1,000) spends what they would (issue 43).
   */
  cost?: (req: Request) => number;
  /** How long the counter may take before the request goes through unlimited. */
  timeoutMs?: number;
  now?: Clock;
}

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
  const keyOf = options.key ?? clientAddress;
  const now = options.now ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 250;
  let lastWarning = 0;

  return async (req, res, next) => {
    const subject = keyOf(req);
    if (subject === undefined) return next();
    const at = now();
    const window = Math.floor(at / rule.windowMs);
    const resetAt = (window + 1) * rule.windowMs;
    let count: number;
    try {
      const by = Math.max(1, Math.floor(options.cost?.(req) ?? 1));
      count = await withTimeout(options.counter.count(options.name, window, subject, rule.windowMs + 1000, by), timeoutMs);
    } catch (err) {
      if (at - lastWarning > 60_000) {
        lastWarning = at;
        logger.warn('rate limit skipped: the counter did not answer, failing open', { limit: options.name, err: (err as Error).message });
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
export function rateLimited(rule: RateLimitRule, retryAfterSeconds: number, what = 'requests'): RateLimited {
  return new RateLimited(
    `Too many ${what}: at most ${rule.limit} per ${rule.windowMs / 1000} s. Retry in ${retryAfterSeconds} s.`,
    retryAfterSeconds,
    rule.limit,
    rule.windowMs / 1000,
  );
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
 * Limits that sit in front of other areas' routes, mounted before them: reads (off unless the
 * operator sets RATE_LIMIT_READS) and publish per client address. Publish per token is applied by
 * the publish router itself, after authentication.
 */
export function edgeRateLimits(options: { counter: WindowCounter; rules: RateLimitSettings; logger: Logger }): Router {
  const router = Router();
  const { counter, rules, logger } = options;
  const reads = rules.reads;
  if (reads) {
    const limiter = rateLimit({ counter, name: 'reads', rule: reads, logger });
    router.get(READ_PATHS, limiter);
    // A change-feed page spends what the catalog reads it replaces would: one per 100 changes (a
    // listing's history and a seller's settlements page likewise, per 100 entries), each page as
    // large as its own route serves it.
    const pages = (limits: PageLimits) => rateLimit({ counter, name: 'reads', rule: reads, logger, cost: pageCost(limits) });
    router.get(PATHS.changes, pages({ defaultLimit: FEED_DEFAULT_LIMIT, maxLimit: FEED_MAX_LIMIT }));
    router.get(PATHS.history, pages({ defaultLimit: HISTORY_MAX_LIMIT, maxLimit: HISTORY_MAX_LIMIT }));
    router.get(PATHS.settlements, pages({ defaultLimit: SETTLEMENTS_DEFAULT_LIMIT, maxLimit: SETTLEMENTS_PER_PAYEE }));
    // MCP discovery tools are catalog reads too, on the same budget: each call of a batch counts.
    router.post(PATHS.mcp, rateLimit({ counter, name: 'reads', rule: reads, logger, cost: jsonRpcCalls }));
  }
  if (rules.publish) {
    const limiter = rateLimit({ counter, name: 'publish', rule: rules.publish, logger });
    router.post(PATHS.publish, limiter);
    router.delete(PATHS.unpublish, limiter);
    router.post(PATHS.optOut, limiter);
    router.delete(PATHS.optOut, limiter);
  }
  return router;
}

/** The largest page of a catalog read (`limit` at most 100): a feed page of `limit` changes is that many reads of it. */
const READ_PAGE = 100;

/** How many entries a paged route answers: without `limit`, and at most. */
export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

/** A page of `limit` entries (the route's default without one, its maximum at most) costs one read per READ_PAGE. */
export function pageCost(limits: PageLimits): (req: Request) => number {
  return (req) => {
    const given = Number(typeof req.query.limit === 'string' ? req.query.limit : NaN);
    const limit = Number.isFinite(given) && given > 0 ? Math.min(given, limits.maxLimit) : limits.defaultLimit;
    return Math.max(1, Math.ceil(limit / READ_PAGE));
  };
}

/** The JSON-RPC requests (not notifications or answers) in a POST /mcp body: one message, or a batch of them. */
export function jsonRpcCalls(req: Request): number {
  const body: unknown = req.body;
  const messages = Array.isArray(body) ? body : [body];
  const calls = messages.filter((m) => typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string' && 'id' in m).length;
  return Math.max(1, calls);
}

const READ_PATHS = [PATHS.search, PATHS.resources, PATHS.resource, PATHS.merchant, PATHS.mcpTools, PATHS.bazaarSearch, PATHS.bazaarResources, PATHS.settlement];
