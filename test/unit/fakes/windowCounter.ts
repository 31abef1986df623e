/**
 * In-memory fixed-window counter, the port the rate limiter counts through (the Redis one is
 * store/redis/rateLimitCounter.ts, tested against Redis in test/rate-limit.test.ts).
 */
import type { WindowCounter } from '../../../src/http/rateLimit.js';

export interface FakeWindowCounter extends WindowCounter {
  /** Counts by `name|window|subject`. */
  readonly counts: Map<string, number>;
  /** When set, every count fails (an unreachable Redis) or never answers. */
  failure?: 'error' | 'hang';
}

export function fakeWindowCounter(): FakeWindowCounter {
  const counter: FakeWindowCounter = {
    counts: new Map(),
    async count(name, window, subject) {
      if (counter.failure === 'error') throw new Error('counter unreachable');
      if (counter.failure === 'hang') return new Promise<number>(() => undefined);
      const key = `${name}|${window}|${subject}`;
      const next = (counter.counts.get(key) ?? 0) + 1;
      counter.counts.set(key, next);
      return next;
    },
  };
  return counter;
}
