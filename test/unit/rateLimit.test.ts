import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { RateLimited } from '../../src/core/errors.js';
import { bearerTokenKey, clientAddress, pageCost, rateLimit } from '../../src/http/rateLimit.js';
import { createLogger } from '../../src/logger.js';
import { manualClock } from './fakes/clock.js';
import { fakeWindowCounter } from './fakes/windowCounter.js';

const logger = createLogger('error', { silent: true });
const request = (ip: string, headers: Record<string, string> = {}) =>
  ({ ip, socket: { remoteAddress: ip }, header: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

/** Runs the middleware once: what it passed to next() and the headers it set. */
async function pass(handler: ReturnType<typeof rateLimit>, req: Request): Promise<{ error: unknown; headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => { headers[name] = value; } } as unknown as Response;
  const error = await new Promise<unknown>((resolve) => void handler(req, res, (err?: unknown) => resolve(err)));
  return { error, headers };
}

describe('unit: rate limits', () => {
  const rule = { limit: 2, windowMs: 60_000 };

  it('lets `limit` requests of a client through per window, then 429 with the seconds to the window\'s end', async () => {
    const clock = manualClock(600_000 + 15_000);
    const limiter = rateLimit({ counter: fakeWindowCounter(), name: 'announce', rule, logger, now: clock.now });
    const client = request('203.0.113.9');
    assert.equal((await pass(limiter, client)).error, undefined);
    const second = await pass(limiter, client);
    assert.equal(second.error, undefined);
    assert.deepEqual(second.headers, { 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '45' });
    const third = await pass(limiter, client);
    assert.ok(third.error instanceof RateLimited);
    assert.equal(third.error.retryAfterSeconds, 45);
    assert.match(third.error.detail, /at most 2 per 60 s/);
  });

  it('a new window starts a new budget; other clients have their own', async () => {
    const clock = manualClock(0);
    const limiter = rateLimit({ counter: fakeWindowCounter(), name: 'announce', rule, logger, now: clock.now });
    for (let i = 0; i < 3; i++) await pass(limiter, request('203.0.113.9'));
    assert.equal((await pass(limiter, request('203.0.113.10'))).error, undefined);
    clock.advance(60_000);
    assert.equal((await pass(limiter, request('203.0.113.9'))).error, undefined);
  });

  it('fails open when the counter errs or does not answer in time: the API stays up', async () => {
    const counter = fakeWindowCounter();
    const limiter = rateLimit({ counter, name: 'reads', rule: { limit: 0, windowMs: 1000 }, logger, timeoutMs: 20 });
    counter.failure = 'error';
    assert.equal((await pass(limiter, request('203.0.113.9'))).error, undefined);
    counter.failure = 'hang';
    assert.equal((await pass(limiter, request('203.0.113.9'))).error, undefined);
  });

  it('a request without a key (no bearer token) is not limited by that budget', async () => {
    const counter = fakeWindowCounter();
    const limiter = rateLimit({ counter, name: 'publish-token', rule: { limit: 0, windowMs: 1000 }, logger, key: bearerTokenKey });
    assert.equal((await pass(limiter, request('203.0.113.9'))).error, undefined);
    assert.equal(counter.counts.size, 0);
    assert.ok((await pass(limiter, request('203.0.113.9', { authorization: 'Bearer pdsk_x' }))).error instanceof RateLimited);
  });

  it('a paged read costs one read per 100 entries of its own route\'s page: its default without limit, its maximum at most', () => {
    const withLimit = (limit?: string) => ({ query: limit === undefined ? {} : { limit } }) as unknown as Request;
    const history = pageCost({ defaultLimit: 50, maxLimit: 50 });
    const settlements = pageCost({ defaultLimit: 100, maxLimit: 1000 });
    assert.equal(history(withLimit()), 1);
    assert.equal(history(withLimit('1000')), 1, 'a history page is at most 50 entries, whatever was asked');
    assert.equal(settlements(withLimit()), 1);
    assert.equal(settlements(withLimit('250')), 3);
    assert.equal(settlements(withLimit('5000')), 10);
    assert.equal(settlements(withLimit('nonsense')), 1);
    assert.equal(settlements(withLimit('-4')), 1);
  });

  it('bearer budgets are keyed by a hash, so a token never appears in a Redis key', () => {
    const key = bearerTokenKey(request('1.1.1.1', { authorization: 'Bearer pdsk_secret' }))!;
    assert.match(key, /^[0-9a-f]{32}$/);
    assert.ok(!key.includes('pdsk'));
    assert.equal(bearerTokenKey(request('1.1.1.1', { authorization: 'bearer pdsk_secret' })), key, 'the scheme is case-insensitive');
    assert.equal(bearerTokenKey(request('1.1.1.1', { authorization: 'Basic abc' })), undefined);
  });

  it('IPv6 clients share a budget per /64; mapped IPv4 counts as IPv4', () => {
    assert.equal(clientAddress(request('2001:db8:1:2:aaaa::1')), '2001:db8:1:2::/64');
    assert.equal(clientAddress(request('2001:db8:1:2:ffff:ffff:ffff:ffff')), '2001:db8:1:2::/64');
    assert.equal(clientAddress(request('2001:db8::1')), '2001:db8:0:0::/64');
    assert.notEqual(clientAddress(request('2001:db8:1:3::1')), clientAddress(request('2001:db8:1:2::1')));
    assert.equal(clientAddress(request('::ffff:198.51.100.7')), '198.51.100.7');
  });
});
