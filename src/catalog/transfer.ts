/**
 * Import and export of listings in the response shape (README "Operating"; operators seed, move and back up a
 * catalog with them; the demo catalog is such a file). Import goes through the bulk write path, so
 * every entry is validated like any other write; `id` in a file is ignored and recomputed.
 */
import type { FieldError } from '../core/errors.js';
import type { Listing } from '../shapes/listing.js';
import type { ListingDocument } from '../store/listingDocument.js';
import { toListing } from './listing.js';
import type { CatalogWriter, RejectedWrite, WriteContext } from './writer.js';

export type ParsedEntry = { index: number; value: unknown } | { index: number; error: FieldError };

/** A JSON array of listings, or JSON lines (one listing per non-empty line). */
export function parseListingFile(text: string): ParsedEntry[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (err) {
      return [{ index: 0, error: { path: '(file)', message: `not valid JSON: ${(err as Error).message}` } }];
    }
    if (!Array.isArray(parsed)) return [{ index: 0, error: { path: '(file)', message: 'must be a JSON array or JSON lines' } }];
    return parsed.map((value, index) => ({ index, value }));
  }
  const entries: ParsedEntry[] = [];
  const lines = trimmed.split(/\r?\n/);
  lines.forEach((line, lineNo) => {
    if (line.trim() === '') return;
    const index = entries.length;
    try {
      entries.push({ index, value: JSON.parse(line) });
    } catch (err) {
      entries.push({ index, error: { path: '(root)', message: `line ${lineNo + 1} is not valid JSON: ${(err as Error).message}` } });
    }
  });
  return entries;
}

export interface ImportResult {
  total: number;
  accepted: Array<{ index: number; id: string; created: boolean }>;
  rejected: RejectedWrite[];
}

/** Queues every valid entry through the bulk write path; rejected entries keep their file index. */
export async function importListings(
  writer: CatalogWriter,
  entries: ParsedEntry[],
  context: WriteContext,
  chunkSize = 1000,
): Promise<ImportResult> {
  const result: ImportResult = { total: entries.length, accepted: [], rejected: [] };
  for (let start = 0; start < entries.length; start += chunkSize) {
    const chunk = entries.slice(start, start + chunkSize);
    const values: unknown[] = [];
    const indexOf: number[] = [];
    for (const entry of chunk) {
      if ('error' in entry) result.rejected.push({ index: entry.index, errors: [entry.error] });
      else {
        values.push(entry.value);
        indexOf.push(entry.index);
      }
    }
    const written = await writer.upsertMany(values, context);
    for (const a of written.accepted) result.accepted.push({ ...a, index: indexOf[a.index]! });
    for (const r of written.rejected) result.rejected.push({ ...r, index: indexOf[r.index]! });
  }
  result.rejected.sort((a, b) => a.index - b.index);
  return result;
}

/**
 * The exported form of a stored listing: the response shape (toListing), plus `method` for HTTP
 * listings other than GET so that re-importing the file lands on the same ids.
 */
export function exportedListing(doc: ListingDocument): Omit<Listing, 'provenance'> & { method?: string } {
  // Provenance is what this catalog saw, not part of the listing: an import records its own.
  const { provenance: _provenance, ...listing } = toListing(doc);
  if (listing.type !== 'http' || !doc.method || doc.method === 'GET') return listing;
  const { id, type, resource, ...rest } = listing;
  return { id, type, resource, method: doc.method, ...rest };
}
