/**
 * Listings for the catalog-read tests, written through the real write path and awaited until
 * Elasticsearch serves them.
 */
import type { Harness } from './harness.js';
import { waitFor } from './harness.js';
import type { HttpListingInput, McpListingInput } from '../../src/shapes/listingInput.js';
import type { WriteContext } from '../../src/catalog/writer.js';

export const BASE_SEPOLIA = 'eip155:84532';
export const BASE = 'eip155:8453';
export const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

export interface HttpSpec {
  path: string;
  title: string;
  description?: string;
  tags?: string[];
  amount?: string;
  network?: string;
  asset?: string;
  scheme?: 'exact' | 'upto';
  payTo?: string;
  lastSettled?: string;
}

/** Hosts are neutral words so URL keywords do not skew text relevance. */
export function httpListing(spec: HttpSpec): HttpListingInput {
  const input: HttpListingInput = {
    type: 'http',
    resource: `https://svc.example.org/${spec.path}`,
    payment: {
      scheme: spec.scheme ?? 'exact',
      network: spec.network ?? BASE_SEPOLIA,
      asset: spec.asset ?? USDC,
      amount: spec.amount ?? '1000',
      payTo: spec.payTo ?? '0x1111111111111111111111111111111111111111',
    },
    describe: { title: spec.title, description: spec.description ?? '', tags: spec.tags ?? [] },
  };
  if (spec.lastSettled) input.signals = { lastSettled: spec.lastSettled, settleCount7d: 1, rejectionRate7d: 0 };
  return input;
}

export function mcpListing(spec: { name: string; description: string; tags?: string[]; amount?: string; lastSettled?: string }): McpListingInput {
  const input: McpListingInput = {
    type: 'mcp',
    resource: `mcp://tools.example.org/${spec.name}`,
    name: spec.name,
    description: spec.description,
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    payment: { scheme: 'exact', network: BASE_SEPOLIA, asset: USDC, amount: spec.amount ?? '1000' },
    tags: spec.tags ?? [],
  };
  if (spec.lastSettled) input.signals = { lastSettled: spec.lastSettled, settleCount7d: 1, rejectionRate7d: 0 };
  return input;
}

/**
 * Writes through `catalog.writer` and resolves with the ids once every one of them is searchable
 * and (with the model installed) embedded: the embedding worker runs after the write, and a test
 * that ranks must not see half of its listings with a vector.
 */
export async function seed(h: Harness, inputs: Array<HttpListingInput | McpListingInput>, context: Partial<WriteContext> = {}): Promise<string[]> {
  const ids = await seedUnembedded(h, inputs, context);
  await h.container.embeddings.catchUp();
  // Always: the background round catchUp waited for may have written the vectors instead.
  await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
  return ids;
}

/** `seed` without waiting for the embedding worker: the listings are searchable by their words. */
export async function seedUnembedded(h: Harness, inputs: Array<HttpListingInput | McpListingInput>, context: Partial<WriteContext> = {}): Promise<string[]> {
  const result = await h.container.catalog.writer.upsertMany(inputs, { source: 'import', ...context });
  if (result.rejected.length > 0) throw new Error(`fixtures rejected: ${JSON.stringify(result.rejected)}`);
  const ids = result.accepted.map((a) => a.id);
  await waitSearchable(h, ids);
  return ids;
}

export async function waitSearchable(h: Harness, ids: string[], predicate?: object): Promise<void> {
  await waitFor(async () => {
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    const { count } = await h.elasticsearch.count({
      index: h.config.listingsAlias,
      query: { bool: { filter: [{ terms: { id: ids } }, ...(predicate ? [predicate] : [])] } },
    });
    return count === new Set(ids).size;
  }, 15_000);
}

export const daysAgo = (days: number, from = Date.now()): string => new Date(from - days * 86_400_000).toISOString();
