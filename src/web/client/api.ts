/**
 * The public JSON API as the page calls it: the page shows exactly what any client gets. A
 * problem+json answer becomes an ApiError whose message a person can read (the API's detail and
 * every field it names); no answer at all says the service is unreachable.
 */
import type { Listing } from '../../shapes/listing.js';
import type { MerchantSummary } from '../../shapes/merchant.js';
import type { SettlementsPage } from '../../shapes/settlement.js';
import type { AnnounceStatus } from '../../shapes/announceStatus.js';

export interface Page {
  results: Listing[];
  nextCursor?: string;
}

/** GET /discovery/announce/status?origin=: what an origin announce read and each resource's probe outcome (docs/federation.md). */
export interface OriginStatus {
  origin: string;
  announcedAt: string;
  manifests: Array<{ url: string; outcome: 'read' | 'absent' | 'failed' | 'invalid'; shape?: string; resources: number; detail?: string }>;
  resources: Array<{ resource: string; method: string; id?: string; outcome: string; reason?: string; status?: AnnounceStatus['status'] | 'forgotten'; detail?: string }>;
  /** Entries per outcome, all counted (older records have none). */
  counts?: Record<string, number>;
  /** Skipped entries counted but not listed. */
  omitted?: number;
}

/** An origin alone (no path, query or fragment): announcing it reads the site's manifests. */
export function originOnly(value: string): string | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search && !url.hash && !value.trim().endsWith('/') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

interface Problem {
  status: number;
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

function readable(problem: Problem): string {
  const fields = (problem.errors ?? []).map((e) => `${e.path} ${e.message}`);
  const detail = problem.detail ?? `The service answered ${problem.status}.`;
  const unique = fields.filter((f) => !detail.includes(f.split(' ').slice(1).join(' ')));
  return unique.length > 0 ? `${detail} (${unique.join('; ')})` : detail;
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: { Accept: 'application/json', ...(init?.body ? { 'Content-Type': 'application/json' } : {}) } });
  } catch {
    throw new ApiError('The catalog service cannot be reached. Check your connection and try again.', 0);
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok) return body as T;
  const problem = (body ?? { status: res.status }) as Problem;
  if (res.status === 503 && !problem.detail) problem.detail = 'The catalog is temporarily unavailable; try again in a few seconds.';
  throw new ApiError(readable({ ...problem, status: res.status }), res.status, problem.code);
}

export function queryString(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const api = {
  /** With `q`: ranked search; without: structured filtering (newest first). */
  read: (params: Record<string, string | undefined>) =>
    call<Page>(`${params.q ? '/discovery/search' : '/discovery/resources'}${queryString(params)}`),
  listing: (id: string) => call<Listing>(`/discovery/resources/${encodeURIComponent(id)}`),
  merchant: (payTo: string, cursor?: string) =>
    call<Page & { payTo: string; summary: MerchantSummary }>(`/discovery/merchant${queryString({ payTo, limit: '20', cursor })}`),
  settlements: (payTo: string, limit: number) => call<SettlementsPage>(`/settlements${queryString({ payTo, limit: String(limit) })}`),
  status: (lookup: { id?: string; resource?: string }) => call<AnnounceStatus>(`/discovery/announce/status${queryString(lookup)}`),
  announce: (resource: string) => call<{ id: string; status: string }>('/discovery/announce', { method: 'POST', body: JSON.stringify({ resource }) }),
  announceOrigin: (origin: string) => call<OriginStatus>('/discovery/announce', { method: 'POST', body: JSON.stringify({ origin }) }),
  originStatus: (origin: string) => call<OriginStatus>(`/discovery/announce/status${queryString({ origin })}`),
};
