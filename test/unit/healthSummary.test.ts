import assert from 'node:assert/strict';
import { summarizeChecks } from '../../src/signals/health.js';
import { HealthSchedule } from '../../src/probe/healthSchedule.js';

describe('unit: signals.health from the checks of the window', () => {
  it('never checked: no health at all (not a perfect one)', () => {
    assert.equal(summarizeChecks([]), undefined);
  });

  it('uptime is the share of valid 402s (4 decimals); latency the median of the successful checks only; lastChecked the newest', () => {
    const health = summarizeChecks([
      { at: 3000, ok: true, latencyMs: 40 },
      { at: 1000, ok: true, latencyMs: 10 },
      { at: 2000, ok: false, latencyMs: 3000 },
      { at: 4000, ok: true, latencyMs: 20 },
    ]);
    assert.deepEqual(health, { uptime7d: 0.75, latencyP50Ms: 20, lastChecked: new Date(4000).toISOString() });
    assert.equal(summarizeChecks([{ at: 1, ok: true, latencyMs: 5 }, { at: 2, ok: false, latencyMs: 0 }, { at: 3, ok: false, latencyMs: 0 }])!.uptime7d, 0.3333);
    // An even count takes the lower middle: a latency that was really measured.
    assert.equal(summarizeChecks([{ at: 1, ok: true, latencyMs: 30 }, { at: 2, ok: true, latencyMs: 10 }])!.latencyP50Ms, 10);
    assert.deepEqual(summarizeChecks([{ at: 5, ok: false, latencyMs: 3000 }]), { uptime7d: 0, latencyP50Ms: null, lastChecked: new Date(5).toISOString() });
  });

  it('the schedule: active within 7 days of the last settlement, idle otherwise, never beyond the re-probe period', async () => {
    const DAY = 86_400_000;
    const lastSettled = new Map<string, number>([['recent', 10 * DAY], ['old', 0]]);
    const schedule = (reprobeIntervalMs: number) =>
      new HealthSchedule(
        { healthActiveIntervalMs: 900_000, healthIdleIntervalMs: 6 * 3_600_000, reprobeIntervalMs },
        { record: async () => undefined, lastSettledAt: async (id) => lastSettled.get(id) },
      );
    const at = 12 * DAY;
    assert.equal(await schedule(DAY).intervalFor('recent', at), 900_000);
    assert.equal(await schedule(DAY).intervalFor('old', at), 6 * 3_600_000);
    assert.equal(await schedule(DAY).intervalFor('never', at), 6 * 3_600_000);
    assert.equal(await schedule(3_600_000).intervalFor('old', at), 3_600_000);
  });
});
