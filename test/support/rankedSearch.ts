/** Checks a buyer can make of any ranked search: explain multiplies out, and cursors page through every match once. */
import assert from 'node:assert/strict';
import type { Debug } from '../../src/shapes/listing.js';

/** explain=1: relevance x priceBoost x recencyBoost x healthBoost x popularityBoost is the score within 1e-4. */
export function assertExplainMultiplies(debug: Debug | undefined, context: string): void {
  assert.ok(debug, `${context}: no debug`);
  const product = debug.relevance * debug.priceBoost * debug.recencyBoost * debug.healthBoost * debug.popularityBoost;
  assert.ok(Math.abs(product - debug.score) <= 1e-4 * Math.max(1, debug.score), `${context}: ${JSON.stringify(debug)}`);
}

/** The ids of every page of a read, following `nextCursor` (at most 50 pages); `fetchPage` gets the cursor parameter to append. */
export async function idsOfEveryPage(fetchPage: (cursorParameter: string) => Promise<{ results: Array<{ id: string }>; nextCursor?: string }>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const next = await fetchPage(cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
    seen.push(...next.results.map((r) => r.id));
    if (!next.nextCursor) break;
    cursor = next.nextCursor;
  }
  return seen;
}
