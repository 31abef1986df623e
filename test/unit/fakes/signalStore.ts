/**
 * In-memory signal store (store/redis/signalStore.ts), the port src/signals/counters.ts records and
 * reads through, with its script's rules: a payer's events of a UTC day count only up to the cap,
 * lastSettled moves even past it, an amount sample joins only when counted, the dirty set and the
 * aging schedule. TTLs are left out: the window read ignores what they would drop. Tested against
 * Redis in test/signals.test.ts.
 */
import type { SignalCounter, SignalDays, SignalEvent, SignalStore, StoredSignalWindow } from '../../../src/store/redis/signalStore.js';

export interface FakeSignalStore {
  store: SignalStore;
  /** When set, every call fails like an unreachable Redis. */
  down: boolean;
}

export function fakeSignalStore(): FakeSignalStore {
  const payerDays = new Map<string, Map<string, number>>();
  const buckets = new Map<string, Record<SignalCounter, Record<string, string>>>();
  const lastSettled = new Map<string, string>();
  const amounts = new Map<string, Array<{ value: string; at: number }>>();
  const dirty = new Set<string>();
  const aging = new Map<string, number>();
  // Payer evidence: exact sets stand in for the HyperLogLogs; the top-payer cut is kept.
  const firstSettled = new Map<string, string>();
  const payersOfDay = new Map<string, Set<string>>();
  const settleDays = new Map<string, Record<string, string>>();
  const topPayers = new Map<string, Map<string, number>>();
  const fake: FakeSignalStore = { store: undefined as unknown as SignalStore, down: false };
  const up = () => {
    if (fake.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  };
  const windowOf = (id: string) => {
    let window = buckets.get(id);
    if (!window) buckets.set(id, (window = { settle: {}, verify: {}, reject: {} }));
    return window;
  };
  const store = {
    async record(event: SignalEvent): Promise<boolean> {
      up();
      const dayKey = `${event.listingId}|${event.kind}|${event.day}`;
      const payers = payerDays.get(dayKey) ?? new Map<string, number>();
      payerDays.set(dayKey, payers);
      const n = (payers.get(event.payer) ?? 0) + 1;
      payers.set(event.payer, n);
      const counted = n <= event.payerDailyCap;
      if (counted) {
        const window = windowOf(event.listingId);
        for (const counter of event.counters) window[counter][event.hour] = String(Number(window[counter][event.hour] ?? 0) + 1);
        if (event.amount) {
          const { value, at, since, maxSamples } = event.amount;
          const kept = [...(amounts.get(event.listingId) ?? []), { value, at }].filter((a) => a.at > since).sort((a, b) => a.at - b.at);
          amounts.set(event.listingId, kept.slice(-maxSamples));
        }
        aging.set(`${event.listingId}|${event.hour}`, event.leavesWindowAt);
      }
      if (event.lastSettled) lastSettled.set(event.listingId, event.lastSettled.at);
      if (event.lastSettled && event.payers) {
        if (!firstSettled.has(event.listingId)) firstSettled.set(event.listingId, event.lastSettled.at);
        const key = `${event.listingId}|${event.day}`;
        payersOfDay.set(key, (payersOfDay.get(key) ?? new Set()).add(event.payer));
        if (counted) {
          const days = settleDays.get(event.listingId) ?? {};
          days[event.day] = String(Number(days[event.day] ?? 0) + 1);
          settleDays.set(event.listingId, days);
          const top = topPayers.get(key) ?? new Map<string, number>();
          top.set(event.payer, (top.get(event.payer) ?? 0) + 1);
          const kept = [...top].sort((a, b) => b[1] - a[1]).slice(0, event.payers.topPayersKept);
          topPayers.set(key, new Map(kept));
        }
      }
      if (counted || event.lastSettled) dirty.add(event.listingId);
      return counted;
    },
    async read(listingIds: string[], amountsSince: number, days: SignalDays): Promise<Map<string, StoredSignalWindow>> {
      up();
      const distinct = (id: string, over: number[]) => new Set(over.flatMap((day) => [...(payersOfDay.get(`${id}|${day}`) ?? [])])).size;
      return new Map(listingIds.map((id): [string, StoredSignalWindow] => {
        const window = windowOf(id);
        return [id, {
          buckets: { settle: { ...window.settle }, verify: { ...window.verify }, reject: { ...window.reject } },
          lastSettled: lastSettled.get(id),
          firstSettled: firstSettled.get(id),
          amounts: (amounts.get(id) ?? []).filter((a) => a.at > amountsSince).map((a) => a.value),
          payersShort: distinct(id, days.short),
          payersLong: distinct(id, days.long),
          settleDays: { ...settleDays.get(id) },
          topPayers: days.short.map((day) => Object.fromEntries(topPayers.get(`${id}|${day}`) ?? [])),
        }];
      }));
    },
    async dropDays(expired: Array<{ listingId: string; days: string[] }>) {
      up();
      for (const { listingId, days } of expired) for (const day of days) delete settleDays.get(listingId)?.[day];
    },
    async dropHours(expired: Array<{ listingId: string; counter: SignalCounter; hours: string[] }>) {
      up();
      for (const { listingId, counter, hours } of expired) for (const hour of hours) delete windowOf(listingId)[counter][hour];
    },
    async takeDirty(max: number) {
      up();
      const ids = [...dirty].slice(0, max);
      for (const id of ids) dirty.delete(id);
      return ids;
    },
    async markDirty(listingIds: string[]) {
      up();
      for (const id of listingIds) dirty.add(id);
    },
    async takeAged(now: number, max: number) {
      up();
      const due = [...aging].filter(([, at]) => at <= now).slice(0, max).map(([member]) => member);
      for (const member of due) aging.delete(member);
      return [...new Set(due.map((member) => member.slice(0, member.lastIndexOf('|'))))];
    },
  };
  // A class with private members: cast, only these methods are used by SignalCounters.
  fake.store = store as unknown as SignalStore;
  return fake;
}
