import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { SignalCounters } from '../../src/signals/counters.js';
import { SignalFlusher } from '../../src/signals/flusher.js';
import { ListingSignals } from '../../src/signals/listingSignals.js';
import { eventSlot, HOUR_MS, medianAmount, rejectionRate, WINDOW_MS, windowCount } from '../../src/signals/window.js';
import { httpInput } from '../support/listings.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';
import { manualClock } from './fakes/clock.js';
import { fakeSignalStore } from './fakes/signalStore.js';

const DAY_MS = 24 * HOUR_MS;
const PAYER = '0xAbC0000000000000000000000000000000000001';
const OTHER = '0xabc0000000000000000000000000000000000002';

function world(cap = 10) {
  const clock = manualClock(Date.UTC(2026, 10, 26, 10, 0));
  const fake = fakeSignalStore();
  const counters = new SignalCounters(fake.store, clock.now, cap);
  const read = async (id: string) => (await counters.read([id])).get(id)!;
  return { clock, fake, counters, read };
}

describe('unit: the 7-day window', () => {
  it('median of settled amounts: compared as integers (past 2^53), the lower middle of an even count', () => {
    assert.equal(medianAmount([]), undefined);
    assert.equal(medianAmount(['5']), '5');
    assert.equal(medianAmount(['10', '9', '100']), '10', 'not "100" < "9" as text');
    assert.equal(medianAmount(['4', '1', '3', '2']), '2', 'an amount that was actually settled');
    assert.equal(medianAmount(['9007199254740993', '9007199254740992', '9007199254740995']), '9007199254740993');
  });

  it('rejection rate: refused over all verifications, 4 decimals, 0 without any', () => {
    assert.equal(rejectionRate(0, 0), 0);
    assert.equal(rejectionRate(1, 3), 0.3333);
    assert.equal(rejectionRate(2, 2), 1);
  });

  it('an hour counts for exactly 168 hours, then is expired', () => {
    const now = Date.UTC(2026, 10, 26, 10, 30);
    const hour = Math.floor(now / HOUR_MS);
    const buckets = { [hour]: '2', [hour - 167]: '3', [hour - 168]: '5', [hour + 1]: '7' };
    assert.deepEqual(windowCount(buckets, now), { count: 5, expired: [String(hour - 168)] }, 'a future hour (clock skew) is neither counted nor dropped');
  });

  it('an event\'s bucket outlives its last counted hour, and its payer-day count the UTC day', () => {
    const now = Date.UTC(2026, 10, 26, 23, 59, 59);
    const slot = eventSlot(now);
    assert.equal(slot.leavesWindowAt, (slot.hour + 168) * HOUR_MS);
    assert.ok(now + slot.bucketTtlSeconds * 1000 >= slot.leavesWindowAt);
    assert.ok(now + slot.payerDayTtlSeconds * 1000 > (slot.day + 1) * DAY_MS);
  });
});

describe('unit: recording listing signals', () => {
  it('settlements count, set lastSettled, and feed the median only with a metered (upto) amount', async () => {
    const { counters, read, clock } = world();
    await counters.recordSettle('lst_a', PAYER, '700');
    await counters.recordSettle('lst_a', OTHER, '300');
    await counters.recordSettle('lst_a', OTHER);
    const signals = await read('lst_a');
    assert.equal(signals.settleCount7d, 3);
    assert.equal(signals.lastSettled, new Date(clock.now()).toISOString());
    assert.equal(signals.medianSettledAmount7d, '300');
  });

  it('a payer\'s weight is capped per listing and UTC day (any case of its address); lastSettled still moves', async () => {
    const { counters, read, clock } = world(2);
    assert.deepEqual(
      [await counters.recordSettle('lst_a', PAYER), await counters.recordSettle('lst_a', PAYER.toLowerCase()), await counters.recordSettle('lst_a', PAYER)],
      [true, true, false],
    );
    clock.advance(60_000);
    await counters.recordSettle('lst_a', PAYER);
    assert.equal((await read('lst_a')).settleCount7d, 2);
    assert.equal((await read('lst_a')).lastSettled, new Date(clock.now()).toISOString());
    assert.equal(await counters.recordSettle('lst_b', PAYER), true, 'the cap is per listing');
    clock.advance(DAY_MS);
    assert.equal(await counters.recordSettle('lst_a', PAYER), true, 'a new UTC day, a new allowance');
  });

  it('the rejection rate counts refused verifications among all of them', async () => {
    const { counters, read } = world();
    await counters.recordVerify('lst_a', PAYER, true);
    await counters.recordVerify('lst_a', OTHER, false);
    await counters.recordVerify('lst_a', OTHER, true);
    await counters.recordVerify('lst_a', OTHER, false);
    assert.equal((await read('lst_a')).rejectionRate7d, 0.5);
    assert.equal((await read('lst_a')).settleCount7d, 0);
  });

  it('after 7 days the counts and the amounts leave the window; lastSettled stays', async () => {
    const { counters, read, clock } = world();
    await counters.recordSettle('lst_a', PAYER, '42');
    const settledAt = new Date(clock.now()).toISOString();
    clock.advance(WINDOW_MS - HOUR_MS);
    assert.equal((await read('lst_a')).settleCount7d, 1);
    clock.advance(HOUR_MS);
    const aged = await read('lst_a');
    // The 30-day demand evidence still counts it; the 7-day one does not; the first settlement stays.
    assert.deepEqual(aged, {
      settleCount7d: 0,
      rejectionRate7d: 0,
      lastSettled: settledAt,
      firstSettled: settledAt,
      uniquePayers7d: 0,
      largestPayerShare7d: 0,
      settleCount30d: 1,
      uniquePayers30d: 1,
    });
  });

  it('a listing never seen reads as zeros, never settled', async () => {
    const { read } = world();
    assert.deepEqual(await read('lst_new'), { settleCount7d: 0, rejectionRate7d: 0 });
  });
});

describe('unit: flushing signals to the catalog', () => {
  const logger = createLogger('error', { silent: true });

  it('writes each changed listing\'s whole block (health included) once, and listings whose counts aged out', async () => {
    const { counters, clock } = world();
    const writer = fakeCatalogWriter(clock.now);
    const { id } = await writer.upsert(httpInput(), { source: 'publish' });
    const health = { checksOf: async (ids: string[]) => new Map(ids.map((i) => [i, [{ at: clock.now(), ok: true, latencyMs: 12 }]])) };
    const flusher = new SignalFlusher(counters, new ListingSignals(counters, health, clock.now), () => writer, logger, 1000);
    await counters.recordSettle(id, PAYER);
    await counters.recordSettle(id, OTHER);
    assert.equal(await flusher.flushNow(), 1, 'two events, one write');
    assert.equal(writer.documents.get(id)?.signals.settleCount7d, 2);
    assert.deepEqual(writer.documents.get(id)?.signals.health, { uptime7d: 1, latencyP50Ms: 12, lastChecked: new Date(clock.now()).toISOString() });
    assert.equal(await flusher.flushNow(), 0, 'nothing changed: nothing written');
    clock.advance(WINDOW_MS);
    assert.equal(await flusher.flushNow(), 1, 'the window moved past the settlements: flushed without new traffic');
    assert.equal(writer.documents.get(id)?.signals.settleCount7d, 0);
  });

  it('a failed write keeps the listings dirty for the next pass', async () => {
    const { counters, clock } = world();
    const writer = fakeCatalogWriter(clock.now);
    const failing = { ...writer, updateSignals: async () => { throw new Error('stream unavailable'); } };
    const signals = new ListingSignals(counters, undefined, clock.now);
    await counters.recordSettle('lst_a', PAYER);
    await assert.rejects(new SignalFlusher(counters, signals, () => failing, logger, 1000).flushNow(), /stream unavailable/);
    assert.equal(await new SignalFlusher(counters, signals, () => writer, logger, 1000).flushNow(), 1);
  });
});
