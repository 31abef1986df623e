/**
 * Ranked search that reads a task as a task (issue 45), around the plain read (CatalogSearch):
 *
 * - **Needs.** A long query is split into its needs (search/taskNeeds.ts); each need is a ranked
 *   search of its own (its words and its meaning, with every filter of the request), and the first
 *   `tasks.head` results take each need's best listing in turn before any need gets a second one
 *   (`coverNeeds`). The rest of the page and the pages after it follow the whole query's ranking,
 *   without the listings already shown; the cursor carries the whole query's cursor and the first
 *   results' ids. explain=1 names the need each result answers. A short query (or `tasks.candidates`
 *   0, or sort=price/recent) reads exactly as before.
 * - **Paid outcomes.** With `outcomes.weight` > 0, the listings paid for after past searches near
 *   the whole query in meaning (src/outcomes) are lifted in every search of the read.
 * - **The payer.** A first page of a search naming its payer is remembered for the link window.
 *
 * Built beside the plain read, not inside it, so it moves onto the read plan (issue 42.4) as one
 * stage: the needs become the plan's parts, the lifts one input of its relevance.
 */
import type { Listing } from '../shapes/listing.js';
import type { Logger } from '../logger.js';
import type { SignedTokenCodec } from '../core/signedToken.js';
import { InvalidInput } from '../core/errors.js';
import type { OutcomeRanking, OutcomeRecorder } from '../outcomes/index.js';
import { CatalogSearch, type CatalogSearchOptions, type DocumentPage, type ReadPage } from './catalogSearch.js';
import { cursorBinding } from './cursor.js';
import type { ReadRequest } from './readRequest.js';
import { coverNeeds, splitNeeds, type NeedPick } from './taskNeeds.js';

export interface TaskSearchOptions extends CatalogSearchOptions {
  /** Seals the cursors of task reads (the cursor secret's codec). */
  taskCursors: SignedTokenCodec;
  outcomes?: { recorder: OutcomeRecorder; ranking: OutcomeRanking };
  logger: Logger;
}

/** A task read's cursor: the whole query's own cursor (absent: its first page) and the first results' ids. */
interface TaskCursor {
  v: 't';
  b: string;
  i?: string;
  /** The first results' ids, in order, and how many of them were shown. */
  h: string[];
  n: number;
}

type Lifts = NonNullable<ReadRequest['lifts']>;

/** A page of listings or of stored documents. */
interface Paged<T> {
  items: T[];
  nextCursor?: string;
}

export class TaskSearch extends CatalogSearch {
  constructor(private readonly tasks: TaskSearchOptions) {
    super(tasks);
  }

  override async read(request: ReadRequest): Promise<ReadPage> {
    const page = await this.taskRead(request, (r) => super.read(r).then((p) => ({ items: p.results, ...(p.nextCursor !== undefined ? { nextCursor: p.nextCursor } : {}) })));
    if (request.explain && page.needs) this.nameNeeds(page.items, page.picks, page.perNeed, page.needs);
    return page.nextCursor === undefined ? { results: page.items } : { results: page.items, nextCursor: page.nextCursor };
  }

  /** The Bazaar surface's read: the same, as stored documents; its offsets (the list) read as before. */
  override async readDocuments(request: ReadRequest, sourceFields: readonly string[]): Promise<DocumentPage> {
    if (request.offset) {
      const { payer: _payer, ...rest } = request;
      return super.readDocuments(rest, sourceFields);
    }
    let total: number | undefined;
    const page = await this.taskRead(request, (r) =>
      super.readDocuments(r, sourceFields).then((p) => {
        total ??= p.total;
        return { items: p.documents, ...(p.nextCursor !== undefined ? { nextCursor: p.nextCursor } : {}) };
      }),
    );
    return { documents: page.items, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}), ...(total !== undefined ? { total } : {}) };
  }

  private async taskRead<T extends { id: string }>(request: ReadRequest, readPlain: (request: ReadRequest) => Promise<Paged<T>>): Promise<Paged<T> & { needs?: string[]; picks: NeedPick[]; perNeed: T[][] }> {
    const { payer, ...rest } = request;
    if (payer !== undefined && rest.kind === 'search' && rest.q !== undefined && rest.cursor === undefined) this.remember(payer, rest.q);
    const none = { picks: [], perNeed: [] };
    if (rest.kind !== 'search' || rest.q === undefined || (rest.sort ?? 'rank') !== 'rank') return { ...(await readPlain(rest)), ...none };
    const settings = await this.options.ranking.current();
    const inner: ReadRequest = { ...rest, ...(await this.lifts(rest.q, settings.outcomes)) };
    const needs = settings.tasks.candidates > 0 ? splitNeeds(rest.q) : [rest.q];
    if (needs.length < 2 && !this.isTaskCursor(rest.cursor)) return { ...(await readPlain(inner)), ...none };
    const cursor = rest.cursor !== undefined ? await this.openCursor(rest, rest.cursor) : undefined;
    // The need-covering first results (tasks.head of them, whatever the page size): computed on the
    // first page, and again on the pages that still show some of them (the cursor says how many).
    let picks: NeedPick[] = [];
    let perNeed: T[][] = [];
    let head: T[] = [];
    const from = cursor?.n ?? 0;
    if (!cursor || from < cursor.h.length) {
      const candidates = { ...inner, limit: settings.tasks.candidates, cursor: undefined, countTotal: false };
      // tasks.whole: the whole query's own best listings take turns after the needs' (a need the split missed).
      const texts = settings.tasks.whole > 0 ? [...needs, rest.q] : needs;
      perNeed = await Promise.all(texts.map((q) => readPlain({ ...candidates, q }).then((p) => p.items)));
      picks = coverNeeds(perNeed.map((list) => list.map((item) => item.id)), settings.tasks.head);
      const byId = new Map(perNeed.flat().map((item) => [item.id, item]));
      head = (cursor ? cursor.h : picks.map((p) => p.id)).flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    }
    const headIds = cursor?.h ?? head.map((item) => item.id);
    const shownHead = head.filter((item) => headIds.indexOf(item.id) >= from).slice(0, rest.limit);
    const until = shownHead.length > 0 ? headIds.indexOf(shownHead[shownHead.length - 1]!.id) + 1 : Math.max(from, headIds.length);
    const page = { needs, picks, perNeed, items: shownHead };
    if (until < headIds.length && shownHead.length === rest.limit) return { ...page, nextCursor: await this.sealCursor(rest, headIds, until, cursor?.i) };
    const { items, more } = await this.fill({ ...inner, limit: rest.limit - shownHead.length }, cursor?.i, new Set(headIds), readPlain);
    page.items = [...shownHead, ...items];
    if (more === false) return page;
    return { ...page, nextCursor: await this.sealCursor(rest, headIds, headIds.length, more === true ? undefined : more) };
  }

  private async sealCursor(request: ReadRequest, head: string[], shown: number, inner: string | undefined): Promise<string> {
    const payload: TaskCursor = { v: 't', b: cursorBinding(request), h: head, n: shown, ...(inner !== undefined ? { i: inner } : {}) };
    return TASK_CURSOR_MARK + (await this.tasks.taskCursors.seal(payload));
  }

  /**
   * The whole query's ranking from `cursor` on (absent: from its start), without the listings of
   * `shown`, until `limit` listings (a page is short only at the end). `more`: the whole query's
   * cursor after them, true when they are none yet (its first page is next), false at the end.
   */
  private async fill<T extends { id: string }>(request: ReadRequest, cursor: string | undefined, shown: ReadonlySet<string>, readPlain: (request: ReadRequest) => Promise<Paged<T>>): Promise<{ items: T[]; more: string | boolean }> {
    if (request.limit <= 0) {
      // The first results fill the page: is there anything else to show after them?
      const probe = await readPlain({ ...request, limit: shown.size + 1, cursor: undefined });
      return { items: [], more: probe.items.some((item) => !shown.has(item.id)) };
    }
    const items: T[] = [];
    let at = cursor;
    // Each round drops at most the shown listings it meets, so a few rounds fill any page.
    for (let round = 0; round <= shown.size; round++) {
      const page = await readPlain({ ...request, limit: request.limit - items.length, cursor: at });
      items.push(...page.items.filter((item) => !shown.has(item.id)));
      at = page.nextCursor;
      if (at === undefined) return { items, more: false };
      if (items.length >= request.limit) break;
    }
    return { items, more: at ?? false };
  }

  /** explain=1: the need each result was picked for, or whose candidates hold it. */
  private nameNeeds(page: Listing[], picks: NeedPick[], perNeed: Listing[][], needs: string[]): void {
    const pickedFor = new Map(picks.map((p) => [p.id, p.need]));
    for (const listing of page) {
      const need = pickedFor.get(listing.id) ?? perNeed.findIndex((list) => list.some((l) => l.id === listing.id));
      if (listing.debug && need >= 0 && need < needs.length) listing.debug.need = { index: need, text: needs[need]! };
    }
  }

  private async lifts(q: string, outcomes: { weight: number; k: number; minSimilarity: number; minPayers: number; saturation: number; halfLifeDays: number }): Promise<{ lifts?: Lifts }> {
    const ranking = this.tasks.outcomes?.ranking;
    if (!ranking || outcomes.weight <= 0) return {};
    // No link in the index: no embedding, no kNN search (issue 46: it cost every ranked search).
    if (!(await ranking.active(outcomes).catch(() => true))) return {};
    const vector = await this.options.queryEmbeddings?.vectorFor(q);
    if (!vector) return {};
    // A ranking feature: when its look-up fails the read goes on without it (logged), never a 503.
    const lifts = await ranking.liftsFor(vector, outcomes, (this.options.now ?? Date.now)()).catch((err: Error) => {
      this.tasks.logger.warn('paid outcomes: lifts not read, ranked without them', { error: err.message });
      return [];
    });
    return lifts.length > 0 ? { lifts } : {};
  }

  private remember(payer: string, q: string): void {
    this.tasks.outcomes?.recorder.searched(payer, q).catch((err: Error) => this.tasks.logger.warn('outcome trail: a search was not remembered', { error: err.message }));
  }

  private isTaskCursor(cursor: string | undefined): boolean {
    return cursor !== undefined && cursor.startsWith(TASK_CURSOR_MARK);
  }

  /** A task read's cursor, or a plain cursor of the whole query (then nothing was shown before). */
  private async openCursor(request: ReadRequest, cursor: string): Promise<{ i?: string; h: string[]; n: number }> {
    if (!this.isTaskCursor(cursor)) return { i: cursor, h: [], n: 0 };
    const opened = await this.tasks.taskCursors.open(cursor.slice(TASK_CURSOR_MARK.length));
    const payload = opened.ok ? (opened.payload as Partial<TaskCursor>) : undefined;
    if (!payload || payload.v !== 't' || !Array.isArray(payload.h)) throw invalidCursor(opened.ok ? 'cursor from another version' : opened.problem === 'altered' ? 'the cursor was altered' : 'malformed cursor');
    if (payload.b !== cursorBinding(request)) throw invalidCursor('the cursor belongs to a different query, filters or sort');
    const h = payload.h.filter((id): id is string => typeof id === 'string');
    const n = typeof payload.n === 'number' && Number.isInteger(payload.n) && payload.n >= 0 ? Math.min(payload.n, h.length) : h.length;
    return { ...(typeof payload.i === 'string' && payload.i !== '' ? { i: payload.i } : {}), h, n };
  }
}

/** Task cursors start with this, so they are told from the whole query's own. */
const TASK_CURSOR_MARK = 't~';

function invalidCursor(reason: string): InvalidInput {
  return new InvalidInput('invalid_cursor', `The cursor is not valid for this request: ${reason}. Start again without a cursor.`, [{ path: 'cursor', message: reason }]);
}
