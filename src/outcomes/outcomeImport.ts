/**
 * `npm run import:outcomes -- FILE` (issue 45): past paid outcomes, one JSON object a line,
 * `{ "q", "resource", "payer", "at" }`, so a new deployment's ranking starts with its history. The
 * operator's file is trusted as `npm run import` is (what it says was paid, was), and kept with its
 * provenance (file, line, when imported); it still passes the evidence rule every link passes: a
 * payer paying one of the listing's payTos, or value going back to where it came from, links
 * nothing. `resource` must name a listed resource; the listing's payTo is the catalog's.
 */
import type { FieldError } from '../core/errors.js';
import type { ImportedOutcome, OutcomeRecorder, SkipReason } from './outcomeRecorder.js';

export interface OutcomeLine {
  q: string;
  resource: string;
  payer: string;
  at: string;
}

export interface OutcomeImportResult {
  total: number;
  linked: number;
  rejected: Array<{ line: number; errors: FieldError[] }>;
  skipped: Array<{ line: number; reason: SkipReason }>;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The lines of the file, each checked; a bad line is named with every problem it has. */
type ParsedLine = { line: number; value?: OutcomeLine; errors?: FieldError[] };

export function parseOutcomeLines(text: string): ParsedLine[] {
  return text.split('\n').flatMap((raw, i): ParsedLine[] => {
    const line = i + 1;
    if (raw.trim() === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return [{ line, errors: [{ path: '(line)', message: 'is not JSON' }] }];
    }
    const o = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const errors: FieldError[] = [];
    if (typeof o.q !== 'string' || o.q.trim() === '' || o.q.length > 512) errors.push({ path: 'q', message: 'must be a search text of 1 to 512 characters' });
    if (typeof o.resource !== 'string' || o.resource === '') errors.push({ path: 'resource', message: 'must name a listed resource' });
    if (typeof o.payer !== 'string' || !ADDRESS.test(o.payer)) errors.push({ path: 'payer', message: 'must be an EVM address' });
    if (typeof o.at !== 'string' || Number.isNaN(Date.parse(o.at))) errors.push({ path: 'at', message: 'must be an ISO 8601 time' });
    const extra = Object.keys(o).filter((k) => !['q', 'resource', 'payer', 'at'].includes(k));
    for (const key of extra) errors.push({ path: key, message: 'is not a member of an outcome line' });
    if (errors.length > 0) return [{ line, errors }];
    return [{ line, value: { q: (o.q as string).trim(), resource: o.resource as string, payer: (o.payer as string).toLowerCase(), at: new Date(o.at as string).toISOString() } }];
  });
}

export async function importOutcomes(
  text: string,
  file: string,
  deps: { recorder: OutcomeRecorder; listings: (resources: string[]) => Promise<Map<string, { id: string; payTos: string[] }>> },
): Promise<OutcomeImportResult> {
  const lines = parseOutcomeLines(text);
  const rejected = lines.filter((l) => l.errors).map((l) => ({ line: l.line, errors: l.errors! }));
  const valid = lines.filter((l): l is { line: number; value: OutcomeLine } => l.value !== undefined);
  const listings = await deps.listings([...new Set(valid.map((l) => l.value.resource))]);
  const outcomes: ImportedOutcome[] = [];
  for (const { line, value } of valid) {
    const listing = listings.get(value.resource);
    if (!listing || listing.payTos.length === 0) {
      rejected.push({ line, errors: [{ path: 'resource', message: 'is not a listed resource' }] });
      continue;
    }
    outcomes.push({ q: value.q, listingId: listing.id, payTo: listing.payTos[0]!, payTos: listing.payTos, payer: value.payer, at: value.at, line });
  }
  const { linked, skipped } = outcomes.length > 0 ? await deps.recorder.imported(outcomes, file) : { linked: 0, skipped: [] };
  return { total: lines.length, linked, rejected: rejected.sort((a, b) => a.line - b.line), skipped };
}
