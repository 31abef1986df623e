/**
 * The demo catalog (demo/catalog.json, what `npm run dev` serves) written into a test harness
 * through the real write path: the OpenAPI examples, the web page and MCP tests read real listings.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseListingFile } from '../../src/catalog/transfer.js';
import type { HttpListingInput, McpListingInput } from '../../src/shapes/listingInput.js';
import type { Harness } from './harness.js';
import { seed } from './discoveryFixtures.js';

const DEMO_FILE = fileURLToPath(new URL('../../demo/catalog.json', import.meta.url));

export function demoListings(): Array<HttpListingInput | McpListingInput> {
  return parseListingFile(readFileSync(DEMO_FILE, 'utf8')).flatMap((entry) => ('value' in entry ? [entry.value as HttpListingInput | McpListingInput] : []));
}

/** Resolves with the listing ids once every demo listing is searchable. */
export async function seedDemoCatalog(h: Harness): Promise<string[]> {
  return seed(h, demoListings(), { source: 'demo' });
}
