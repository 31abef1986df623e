/**
 * Paid outcomes recorded (issue 45): a search that names its payer (the `X-Payer` header, the MCP
 * tools' `payer` argument) is remembered for the link window; a settlement by that payer for a
 * listing within the window links each of those searches to the listing, as a document of the
 * outcome links (store/elasticsearch/outcomeLinks.ts) carrying the search's embedding. The same
 * evidence rule as demand: a settlement that moved no value never reaches here (the facilitator
 * reports only those), a payer paying a payTo of the listing is no evidence, and neither is value
 * going back to where it came from (a recipient paying its payer: both directions are dropped).
 * How much one payer can weigh is the ranking's rule (outcomeRules.ts: each payer once).
 * `npm run import:outcomes` links past outcomes under the same rules, with their provenance.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import type { OutcomeLink, OutcomeLinkIndex } from '../store/elasticsearch/outcomeLinks.js';
import type { OutcomeTrail } from '../store/redis/outcomeTrail.js';

export interface OutcomeRecorderOptions {
  trail: OutcomeTrail;
  links: OutcomeLinkIndex;
  queryEmbeddings: QueryEmbeddings;
  /** A settlement links the payer's searches of this long before it (OUTCOME_WINDOW_MS). */
  windowMs: number;
  clock: Clock;
  logger: Logger;
}

/** A settlement that moved value from `payer`, for a listing paid to `payTo` (one of the listing's `payTos`). */
export interface SettledOutcome {
  payer: string;
  listingId: string;
  payTo: string;
  /** Every payTo of the listing: a payer among them pays itself. */
  payTos: readonly string[];
}

/** An imported past outcome, its listing resolved (scripts/import-outcomes.ts). */
export interface ImportedOutcome {
  q: string;
  listingId: string;
  payTo: string;
  payTos: readonly string[];
  payer: string;
  at: string;
  line: number;
}

export type SkipReason = 'self_payment' | 'circular_value' | 'no_embedding';

const lower = (s: string) => s.toLowerCase();

export class OutcomeRecorder {
  constructor(private readonly options: OutcomeRecorderOptions) {}

  /** A first page of a ranked search by `payer`. */
  async searched(payer: string, q: string): Promise<void> {
    await this.options.trail.searched(lower(payer), { q, at: this.options.clock() }, this.options.windowMs);
  }

  /** Links the payer's searches of the window to the listing; resolves with the links written (or why none). */
  async settled(outcome: SettledOutcome): Promise<number | SkipReason> {
    const verdict = await this.admissible(outcome.payer, outcome.payTo, outcome.payTos);
    if (verdict) return verdict;
    const now = this.options.clock();
    const searches = await this.options.trail.searchesBetween(lower(outcome.payer), now - this.options.windowMs, now);
    const texts = [...new Set(searches.map((s) => s.q))];
    const links: OutcomeLink[] = [];
    for (const q of texts) {
      const link = await this.link(q, { ...outcome, at: new Date(now).toISOString(), source: 'traffic' });
      if (link) links.push(link);
    }
    await this.options.links.write(links);
    return links.length;
  }

  /** Past outcomes of the operator's file; resolves with the lines skipped and why. */
  async imported(outcomes: readonly ImportedOutcome[], file: string): Promise<{ linked: number; skipped: Array<{ line: number; reason: SkipReason }> }> {
    const importedAt = new Date(this.options.clock()).toISOString();
    const links: OutcomeLink[] = [];
    const skipped: Array<{ line: number; reason: SkipReason }> = [];
    for (const outcome of [...outcomes].sort((a, b) => a.at.localeCompare(b.at))) {
      const verdict = await this.admissible(outcome.payer, outcome.payTo, outcome.payTos);
      const link = verdict ? undefined : await this.link(outcome.q, { ...outcome, source: 'import', provenance: { file, line: outcome.line, importedAt } });
      if (link) links.push(link);
      else skipped.push({ line: outcome.line, reason: verdict ?? 'no_embedding' });
    }
    for (let i = 0; i < links.length; i += 500) await this.options.links.write(links.slice(i, i + 500));
    await this.options.links.refresh();
    return { linked: links.length, skipped };
  }

  /** Self-payment and circular value are no evidence; remembers who paid whom for the next check. */
  private async admissible(payer: string, payTo: string, payTos: readonly string[]): Promise<SkipReason | undefined> {
    const from = lower(payer);
    if (payTos.some((p) => lower(p) === from) || lower(payTo) === from) return 'self_payment';
    if (await this.options.trail.paid(from, lower(payTo))) {
      // The recipient had paid this payer: neither direction is evidence of demand.
      await this.options.links.dropPair(lower(payTo), from);
      return 'circular_value';
    }
    return undefined;
  }

  private async link(q: string, fields: Omit<OutcomeLink, 'q' | 'vector' | 'model' | 'payer' | 'payTo'> & { payer: string; payTo: string }): Promise<OutcomeLink | undefined> {
    const vector = await this.options.queryEmbeddings.vectorFor(q);
    if (!vector) return undefined;
    const { listingId, at, source, provenance } = fields;
    return { q, vector: vector.values, model: vector.model, listingId, payer: lower(fields.payer), payTo: lower(fields.payTo), at, source, ...(provenance ? { provenance } : {}) };
  }
}
