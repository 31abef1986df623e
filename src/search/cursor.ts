/**
 * Page cursors: opaque, stateless and tamper-evident. A cursor carries where the next page starts
 * (the sort values of the last listing of a page, for `search_after`; or, in a ranked search's
 * rank window, the position in it), the `now` the first page was scored with (so the recency decay
 * scores later pages identically) and a hash of the query, filters and sort it belongs to; an HMAC
 * over all of it makes any alteration, or a replay with other parameters, detectable.
 */
import { hash } from 'node:crypto';
import { InvalidInput } from '../core/errors.js';
import { SignedTokenCodec } from '../core/signedToken.js';
import type { SortValue } from '../store/elasticsearch/listingQueries.js';
import type { ReadRequest } from './readRequest.js';

export type { SortValue };

/**
 * Where a ranked search's next page starts: a position in the rank window, or past it; with the
 * size of the window the search started with (a search keeps it, as it keeps `now`).
 */
export type RankPhase = { size: number } & ({ position: number } | { tail: true });

export interface CursorState {
  /** Sort values of the last listing shown; absent in the rank window, and at the start of its tail. */
  searchAfter?: SortValue[];
  /** Epoch ms used as the recency origin on every page of a ranked search. */
  now?: number;
  rank?: RankPhase;
  /** The share of the catalog the filters matched on the first page (search/filterShare.ts): its kNN plan. */
  filterShare?: number;
}

interface CursorPayload {
  /** 1: search_after only (cursors made before the rank window); 2: with the rank phase. */
  v: 1 | 2;
  /** Binding: hash of what produced the cursor. */
  b: string;
  a?: SortValue[];
  n?: number;
  /** Position in the rank window. */
  w?: number;
  /** 1: past the rank window. */
  t?: 1;
  /** Size of the rank window. */
  s?: number;
  /** The filters' share of the catalog on the first page. */
  f?: number;
}

/** The rank window is at most this deep (Elasticsearch's default index.max_rescore_window). */
const MAX_WINDOW_POSITION = 10_000;

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
  // One-shot: a Hash object per read cost more than the digest (lab journal 2026-12-03).
  return hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 22);
}

export class CursorCodec {
  private readonly tokens: SignedTokenCodec;

  constructor(secret: () => Promise<Buffer>) {
    this.tokens = new SignedTokenCodec(secret, { maxBodyChars: 2048 });
  }

  async encode(request: ReadRequest, state: CursorState): Promise<string> {
    const payload: CursorPayload = { v: 2, b: cursorBinding(request) };
    if (state.searchAfter) payload.a = state.searchAfter;
    if (state.now !== undefined) payload.n = state.now;
    if (state.filterShare !== undefined) payload.f = state.filterShare;
    if (state.rank) {
      payload.s = state.rank.size;
      if ('tail' in state.rank) payload.t = 1;
      else payload.w = state.rank.position;
    }
    return this.tokens.seal(payload);
  }

  /** Throws InvalidInput invalid_cursor unless the cursor was made by this service for this very request. */
  async decode(request: ReadRequest, cursor: string, sortLength: number): Promise<CursorState> {
    const opened = await this.tokens.open(cursor);
    if (!opened.ok) throw invalidCursor(opened.problem === 'altered' ? 'the cursor was altered' : 'malformed cursor');
    const payload = opened.payload as CursorPayload;
    if (payload.b !== cursorBinding(request)) throw invalidCursor('the cursor belongs to a different query, filters or sort');
    const state: CursorState = {};
    if (typeof payload.n === 'number') state.now = payload.n;
    if (typeof payload.f === 'number' && payload.f > 0 && payload.f <= 1) state.filterShare = payload.f;
    const size = payload.s;
    const validSize = typeof size === 'number' && Number.isInteger(size) && size > 0 && size <= MAX_WINDOW_POSITION;
    if (payload.v === 2 && typeof payload.w === 'number') {
      if (!validSize || !Number.isInteger(payload.w) || payload.w < 0 || payload.w >= size || payload.a !== undefined) throw invalidCursor('cursor from another version');
      state.rank = { size, position: payload.w };
      return state;
    }
    if (payload.v === 2 && payload.t === 1) {
      if (!validSize) throw invalidCursor('cursor from another version');
      state.rank = { size, tail: true };
    }
    const startOfTail = state.rank !== undefined && payload.a === undefined;
    if ((payload.v !== 1 && payload.v !== 2) || (!startOfTail && (!Array.isArray(payload.a) || payload.a.length !== sortLength))) {
      throw invalidCursor('cursor from another version');
    }
    if (payload.a !== undefined) state.searchAfter = payload.a;
    return state;
  }
}
