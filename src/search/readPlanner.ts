/**
 * Plans a read (search/readPlan.ts): gathers what the plan needs from outside the request, once
 * per read, and hands it to `planRead`. For every read the ranking tunables in force and the
 * cursor's state; for a ranked search also, per part of the query, the typo verdict and the
 * query vector, and the share of the catalog the filters match (the kNN search's plan). The
 * look-ups of a part run side by side, so a correctly spelled query (nearly every one) waits for
 * no extra round trip; a misspelled one is embedded as the catalog spells it.
 */
import { systemClock, type Clock } from '../core/clock.js';
import type { QueryEmbeddings, QueryVector } from '../semantic/queryEmbeddings.js';
import type { CursorCodec, CursorState } from './cursor.js';
import type { FilterShare } from './filterShare.js';
import type { RankingCache } from './rankingCache.js';
import type { RankingSettings } from './rankingSettings.js';
import { filterClauses, sortFor, type FilterClauses } from './readClauses.js';
import { planRead, type PartLookup, type ReadPlan } from './readPlan.js';
import type { ReadRequest } from './readRequest.js';
import type { QueryReading } from './textQuery.js';
import { editBudget, type TypoPass } from './typoPass.js';

export interface ReadPlannerOptions {
  ranking: RankingCache;
  cursors: CursorCodec;
  /** Query vectors for semantic retrieval; absent or without a model: text relevance alone. */
  queryEmbeddings?: QueryEmbeddings;
  /** Decides whether a query needs the typo pass; absent: always sent. */
  typoPass?: TypoPass;
  /** How much of the catalog a read's filters match, for its kNN search's plan; absent: filters inside it. */
  filterShare?: FilterShare;
  /** Injectable clock: the recency origin of a first page. */
  now?: Clock;
}

export interface PlanOptions {
  /** Another wire shape's fields (the x402 Bazaar surface). */
  sourceFields?: readonly string[];
  /** Benchmarks only: the tunables as an operator would change them (e.g. another window size). */
  tune?: (settings: RankingSettings) => RankingSettings;
}

/**
 * The texts a ranked search's parts search: the whole query. (A stage that splits a task into
 * needs returns one text per need here; each is looked up and planned as a part of its own.)
 */
function partTexts(q: string): string[] {
  return [q];
}

export class ReadPlanner {
  private readonly now: Clock;

  constructor(private readonly options: ReadPlannerOptions) {
    this.now = options.now ?? systemClock;
  }

  async plan(request: ReadRequest, options: PlanOptions = {}): Promise<ReadPlan> {
    const { ranking, cursors } = this.options;
    const current = await ranking.current();
    const settings = options.tune ? options.tune(current) : current;
    const filters = filterClauses(request.filters);
    const cursor = request.cursor !== undefined ? await cursors.decode(request, request.cursor, sortFor(request).length) : undefined;
    const lookups = request.kind === 'search' && request.q !== undefined ? await this.lookUp(request.q, settings, filters, cursor) : {};
    return planRead(request, {
      settings,
      tunables: ranking.version,
      now: this.now(),
      filters,
      ...(cursor ? { cursor } : {}),
      ...lookups,
      ...(options.sourceFields ? { sourceFields: options.sourceFields } : {}),
    });
  }

  private async lookUp(q: string, settings: RankingSettings, filters: FilterClauses, cursor: CursorState | undefined): Promise<{ parts: PartLookup[]; filterShare?: number }> {
    const semantic = settings.semantic.weight > 0 && this.options.queryEmbeddings !== undefined;
    // A search keeps the kNN plan its first page had, so its pages rank the same neighbours.
    const share = cursor ? Promise.resolve(cursor.filterShare) : semantic && settings.semantic.preFilterMaxShare < 1 ? this.options.filterShare?.of(filters.filter) : undefined;
    const [parts, filterShare] = await Promise.all([Promise.all(partTexts(q).map((text) => this.lookUpPart(text, settings, semantic))), share]);
    return { parts, ...(filterShare !== undefined ? { filterShare } : {}) };
  }

  /** The typo verdict and the vector of one part's words. */
  private async lookUpPart(q: string, settings: RankingSettings, semantic: boolean): Promise<PartLookup> {
    // The catalog's spelling of a misspelled word serves both sides: the words and the meaning.
    const spelling = settings.typos.spelling === 'catalog' ? editBudget(settings.typos.fuzziness) : undefined;
    const rareWithin = settings.rareWords.boost > 0 ? settings.rareWords.maxListings : undefined;
    const asked = settings.typos.weight > 0 || spelling || rareWithin;
    const [typedVector, typos] = await Promise.all([
      semantic ? this.options.queryEmbeddings?.vectorFor(q) : undefined,
      asked ? this.options.typoPass?.check(q, { ...(spelling ? { spelling } : {}), ...(rareWithin ? { rareWithin } : {}) }) : undefined,
    ]);
    const vector: QueryVector | undefined = semantic && typos?.spelled !== undefined ? await this.options.queryEmbeddings?.vectorFor(typos.spelled) : typedVector;
    const reading: QueryReading = {};
    if (typos !== undefined && settings.typos.weight > 0) reading.typoPass = typos.needed;
    if (typos?.spelled !== undefined) reading.spelled = typos.spelled;
    if (typos?.rareWords !== undefined) reading.rareWords = typos.rareWords;
    return { q, reading, ...(vector ? { vector } : {}) };
  }
}
