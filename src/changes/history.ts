/**
 * Listing history (GET /discovery/resources/{id}/history, docs/changes.md): first seen, price
 * changes, schema and description changes, removals and relistings, and the first settlement
 * (with its transaction hash), with dates. Derived from the
 * writes the ingest consumer applied: each write is compared with the listing's last recorded
 * state. Writes to one listing reach here in stream order (never two batches with the same listing
 * at once), and a write replayed after a crash is skipped by its stream entry id.
 */
import { createHash } from 'node:crypto';
import type { AppliedWrite } from '../store/catalogOperations.js';
import type { Payment } from '../shapes/listing.js';
import type { ListingDocument, RemovalReason } from '../store/listingDocument.js';
import type { HistoryLog, HistoryUpdate } from '../store/redis/historyLog.js';

export type Price = Pick<Payment, 'scheme' | 'network' | 'asset' | 'amount'>;

export type HistoryEvent =
  | { type: 'first_seen'; at: string; price: Price }
  | { type: 'price_changed'; at: string; from: Price; to: Price }
  | { type: 'schema_changed'; at: string }
  | { type: 'description_changed'; at: string }
  | { type: 'removed'; at: string; reason: RemovalReason }
  | { type: 'relisted'; at: string }
  /** The first settlement credited to the listing, with its transaction when it was on a chain (issue 44). */
  | { type: 'first_settled'; at: string; transaction?: string };

/** What the next write is compared with. */
interface RecordedState {
  /** Stream entry id of the last write recorded. */
  e: string;
  price: Price;
  schema: string;
  description: string;
  removed: boolean;
  /** Its first settlement was recorded (absent in states from before first_settled existed). */
  settled?: true;
}

function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value ?? null)).digest('base64url').slice(0, 16);
}

function priceOf(doc: ListingDocument): Price {
  const { scheme, network, asset, amount } = doc.payment;
  return { scheme, network, asset, amount: String(amount) };
}

/** Inputs and outputs a buyer calls with: MCP schemas, HTTP declared inputs. */
function schemaOf(doc: ListingDocument): string {
  return fingerprint(doc.type === 'mcp' ? [doc.inputSchema, doc.outputSchema] : doc.describe?.inputs);
}

function descriptionOf(doc: ListingDocument): string {
  return fingerprint(doc.type === 'mcp' ? [doc.name, doc.description] : [doc.describe?.title, doc.describe?.description]);
}

/** Stream entry ids (`ms-seq`) in stream order. */
export function entryAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am > bm || (am === bm && as > bs);
}

const samePrice = (a: Price, b: Price) => a.scheme === b.scheme && a.network === b.network && a.asset === b.asset && a.amount === b.amount;

/** The events one write adds to a listing's history, and the state after it. */
function step(previous: RecordedState | undefined, { entryId, operation }: AppliedWrite): { state?: RecordedState; events: HistoryEvent[] } {
  if (operation.op === 'remove') {
    if (!previous || previous.removed) return { events: [] };
    return { state: { ...previous, e: entryId, removed: true }, events: [{ type: 'removed', at: operation.at, reason: operation.reason }] };
  }
  if (operation.op === 'signals') {
    const settled = operation.settled;
    if (!previous || previous.settled || !settled) return { events: [] };
    const event: HistoryEvent = { type: 'first_settled', at: settled.first, ...(settled.firstTransaction ? { transaction: settled.firstTransaction } : {}) };
    return { state: { ...previous, e: entryId, settled: true }, events: [event] };
  }
  if (operation.op !== 'upsert') return { events: [] };
  const doc = operation.doc;
  const state: RecordedState = { e: entryId, price: priceOf(doc), schema: schemaOf(doc), description: descriptionOf(doc), removed: false, ...(previous?.settled ? { settled: true } : {}) };
  if (!previous) return { state, events: [{ type: 'first_seen', at: doc.firstSeen, price: state.price }] };
  const at = doc.updatedAt;
  const events: HistoryEvent[] = [];
  if (previous.removed) events.push({ type: 'relisted', at });
  if (!samePrice(previous.price, state.price)) events.push({ type: 'price_changed', at, from: previous.price, to: state.price });
  if (previous.schema !== state.schema) events.push({ type: 'schema_changed', at });
  if (previous.description !== state.description) events.push({ type: 'description_changed', at });
  return { state, events };
}

export class ListingHistory {
  constructor(private readonly log: HistoryLog) {}

  async record(writes: AppliedWrite[]): Promise<void> {
    // A signals flush matters only while it carries a first settlement (provenance.settled).
    const relevant = writes.filter(({ operation: op }) => op.op === 'upsert' || op.op === 'remove' || (op.op === 'signals' && op.settled !== undefined));
    if (relevant.length === 0) return;
    const stored = await this.log.states([...new Set(relevant.map((w) => w.operation.id))]);
    const states = new Map<string, RecordedState>();
    for (const [id, json] of stored) states.set(id, JSON.parse(json) as RecordedState);
    const updates = new Map<string, HistoryUpdate>();
    for (const write of relevant) {
      const id = write.operation.id;
      const previous = states.get(id);
      if (previous && !entryAfter(write.entryId, previous.e)) continue; // recorded before a crash, replayed
      const { state, events } = step(previous, write);
      if (!state) continue;
      states.set(id, state);
      const update = updates.get(id) ?? { id, state: '', events: [] };
      update.state = JSON.stringify(state);
      update.events.push(...events.map((e) => JSON.stringify(e)));
      updates.set(id, update);
    }
    await this.log.commit([...updates.values()]);
  }

  /** Newest first, at most `limit`; empty when nothing was recorded for the listing. */
  async read(id: string, limit: number): Promise<HistoryEvent[]> {
    return (await this.log.events(id, limit)).map((json) => JSON.parse(json) as HistoryEvent);
  }
}
