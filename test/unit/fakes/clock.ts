/** A clock the test moves by hand (src/core/clock.ts): time-window logic without sleeping. */
import type { Clock } from '../../../src/core/clock.js';

export interface ManualClock {
  now: Clock;
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(start = Date.UTC(2026, 10, 26, 10, 0, 0)): ManualClock {
  let at = start;
  return {
    now: () => at,
    set: (ms) => { at = ms; },
    advance: (ms) => { at += ms; },
  };
}
