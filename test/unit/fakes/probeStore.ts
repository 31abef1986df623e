/**
 * In-memory probe queue (store/redis/probeStore.ts), the port AnnounceService queues through, with
 * the Lua script's rules: one queued probe per id and interval; a listed record keeps the URL it
 * was verified with; an alias finds a templated record by its concrete URL's id. Tested against
 * Redis in test/announce-api.test.ts.
 */
import type { EnqueueRequest, ProbeRecord, ProbeStatus, ProbeStore } from '../../../src/store/redis/probeStore.js';

export interface FakeProbeStore {
  store: ProbeStore;
  records: Map<string, ProbeRecord>;
  /** When set, every call fails like an unreachable Redis. */
  down: boolean;
}

export function fakeProbeStore(): FakeProbeStore {
  const records = new Map<string, ProbeRecord>();
  const locks = new Map<string, number>();
  const aliases = new Map<string, string>();
  const fake: FakeProbeStore = { store: undefined as unknown as ProbeStore, records, down: false };
  const up = () => {
    if (fake.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  };
  const store = {
    async enqueue(request: EnqueueRequest): Promise<{ queued: boolean; status: ProbeStatus }> {
      up();
      const existing = records.get(request.id);
      if ((locks.get(request.id) ?? -Infinity) > request.now) return { queued: false, status: existing?.status ?? 'pending' };
      locks.set(request.id, request.now + request.minIntervalMs);
      if (existing?.status === 'listed') {
        existing.announcedAt = request.now;
        if (request.expected) existing.expected = request.expected;
      } else {
        const record: ProbeRecord = { id: request.id, resource: request.resource, method: request.method, status: 'pending', announcedAt: request.now, failures: 0 };
        if (request.routeTemplate) record.routeTemplate = request.routeTemplate;
        if (request.expected) record.expected = request.expected;
        records.set(request.id, record);
      }
      if (request.aliasId && request.aliasId !== request.id) aliases.set(request.aliasId, request.id);
      return { queued: true, status: records.get(request.id)!.status };
    },
    async resolveAlias(id: string) {
      up();
      return aliases.get(id) ?? id;
    },
    async get(id: string) {
      up();
      const record = records.get(id);
      return record ? structuredClone(record) : undefined;
    },
  };
  // A class with private members: cast, only these methods are used by AnnounceService.
  fake.store = store as unknown as ProbeStore;
  return fake;
}
