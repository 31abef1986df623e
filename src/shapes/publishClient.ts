/**
 * How the seller SDK names itself to POST /discovery/publish: a listing published with this header
 * records `provenance.published.via = 'sdk'`, any other `'manual'` (docs/catalog-reads.md "API", Provenance). A
 * self-description, like a User-Agent: it tells a buyer how the seller publishes, it proves nothing.
 */
export const PUBLISH_CLIENT_HEADER = 'X-Publish-Client';
export const SDK_PUBLISH_CLIENT = 'paid-api-discovery-sdk';

export function publishedVia(header: string | undefined): 'sdk' | 'manual' {
  return header?.split('/')[0]?.trim() === SDK_PUBLISH_CLIENT ? 'sdk' : 'manual';
}
