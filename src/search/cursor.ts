/**
 * Page cursors: opaque, stateless and tamper-evident. A cursor carries the sort values of the last
 * listing of a page (for `search_after`), the `now` the first page was scored with (so the recency
 * decay scores later pages identically) and a hash of the query, filters and sort it belongs to;
 * an HMAC over all of it makes any alteration, or a replay with other parameters, detectable.
 */
import { createHash } from 'node:crypto';
import { InvalidInput } from '../core/errors.js';
import { SignedTokenCodec } from '../core/signedToken.js';
import type { ReadRequest, SortValue } from '../store/elasticsearch/listingQueries.js';

export type { SortValue };

export interface CursorState {
  searchAfter: SortValue[];
  /** Epoch ms used as the recency origin on every page of a ranked search. */
  now?: number;
}

interface CursorPayload {
  v: 1;
  /** Binding: hash of what produced the cursor. */
  b: string;
  a: SortValue[];
  n?: number;
}

function invalidCursor(reason: string): InvalidInput {
  return new InvalidInput('invalid_cursor', `The cursor is not valid for this request: ${reason}. Start again without a cursor.`, [
    { path: 'cursor', message: reason },
  ]);
}

/**
 * What a cursor is bound to: the kind of read, the query, every filter and the sort. `limit` and
 * `explain` are not part of it (changing the page size between pages is harmless). /mcp/tools is
 * search with type=mcp, so their cursors are interchangeable.
 */
export function cursorBinding(request: ReadRequest): string {
  const f = request.filters;
  const parts = [
    request.kind,
    request.q ?? null,
    request.sort ?? null,
    f.network ?? null,
    f.type ?? null,
    f.maxPrice ?? null,
    f.asset ?? null,
    f.scheme ?? null,
    f.payTo ?? null,
    f.capability ?? null,
    // Appended only when set, so cursors handed out before the filter existed stay valid.
    ...(f.minUptime !== undefined ? [f.minUptime] : []),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

export class CursorCodec {
  private readonly tokens: SignedTokenCodec;

  constructor(secret: () => Promise<Buffer>) {
    this.tokens = new SignedTokenCodec(secret, { maxBodyChars: 2048 });
  }

  async encode(request: ReadRequest, state: CursorState): Promise<string> {
    const payload: CursorPayload = { v: 1, b: cursorBinding(request), a: state.searchAfter };
    if (state.now !== undefined) payload.n = state.now;
    return this.tokens.seal(payload);
  }

  /** Throws InvalidInput invalid_cursor unless the cursor was made by this service for this very request. */
  async decode(request: ReadRequest, cursor: string, sortLength: number): Promise<CursorState> {
    const opened = await this.tokens.open(cursor);
    if (!opened.ok) throw invalidCursor(opened.problem === 'altered' ? 'the cursor was altered' : 'malformed cursor');
    const payload = opened.payload as CursorPayload;
    if (payload.b !== cursorBinding(request)) throw invalidCursor('the cursor belongs to a different query, filters or sort');
    if (payload.v !== 1 || !Array.isArray(payload.a) || payload.a.length !== sortLength) throw invalidCursor('cursor from another version');
    const state: CursorState = { searchAfter: payload.a };
    if (typeof payload.n === 'number') state.now = payload.n;
    return state;
  }
}
