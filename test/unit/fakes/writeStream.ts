/**
 * In-memory durable write stream (store/redis/writeStream.ts), the port DurableCatalogWriter
 * appends to, with its script's rule: each entry changes the live set with it, and append answers
 * per entry whether the set changed (an upsert of an id that was not live). Tested against Redis
 * in test/catalog-durability.test.ts.
 */
import type { AppendRequest, WriteStream } from '../../../src/store/redis/writeStream.js';

export interface FakeWriteStream {
  stream: WriteStream;
  /** Every appended entry, in order. */
  entries: AppendRequest[];
  live: Set<string>;
  /** When set, every append fails like an unreachable Redis: nothing is appended. */
  down: boolean;
}

export function fakeWriteStream(): FakeWriteStream {
  const fake: FakeWriteStream = { stream: undefined as unknown as WriteStream, entries: [], live: new Set(), down: false };
  const stream = {
    async append(requests: AppendRequest[]): Promise<boolean[]> {
      if (fake.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      return requests.map((request) => {
        fake.entries.push(request);
        if (!request.live) return false;
        const had = fake.live.has(request.live.id);
        if (request.live.present) fake.live.add(request.live.id);
        else fake.live.delete(request.live.id);
        return request.live.present ? !had : had;
      });
    },
  };
  // A class with private members: cast, only append is used by the writer.
  fake.stream = stream as unknown as WriteStream;
  return fake;
}
