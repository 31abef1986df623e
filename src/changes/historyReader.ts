/**
 * The read side of listing history: the recorded events, with `first_seen` dated by the stored
 * document (the write path keeps `firstSeen` from a listing's very first write, which may predate
 * history recording), and for a listing with nothing recorded yet (indexed before history
 * existed) what the stored document tells: when it was first seen and whether it was removed.
 */
import type { CatalogReader } from '../catalog/reader.js';
import type { HistoryEvent, ListingHistory } from './history.js';

export interface HistoryPage {
  id: string;
  /** Newest first. */
  events: HistoryEvent[];
}

export class HistoryReader {
  constructor(private readonly history: ListingHistory, private readonly reader: CatalogReader) {}

  /** `undefined` when the listing is unknown. */
  async page(id: string, limit: number): Promise<HistoryPage | undefined> {
    const [doc, recorded] = await Promise.all([this.reader.get(id), this.history.read(id, limit)]);
    if (!doc) return undefined;
    const { scheme, network, asset, amount } = doc.payment;
    if (recorded.length === 0) {
      const events: HistoryEvent[] = [{ type: 'first_seen', at: doc.firstSeen, price: { scheme, network, asset, amount: String(amount) } }];
      if (doc.removed && doc.removedReason) events.unshift({ type: 'removed', at: doc.removedAt ?? doc.updatedAt, reason: doc.removedReason });
      return { id, events: events.slice(0, limit) };
    }
    return { id, events: recorded.map((e) => (e.type === 'first_seen' ? { ...e, at: doc.firstSeen } : e)) };
  }
}
