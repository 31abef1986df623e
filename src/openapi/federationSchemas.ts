/** The response and request shapes of reach (docs/federation.md): origin announces and the upstream status. */
import { LISTING_ID_SOURCE } from '../core/listingId.js';

const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const ITEM_OUTCOME = {
  enum: ['queued', 'pending', 'verified', 'refused', 'skipped', 'invalid'],
  description: 'queued for a probe; pending (already queued); verified (already listed); refused (its probe failed recently); skipped (not probeable, reason says why); invalid (not a usable URL).',
} as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

const originAnnounceRequest = {
  type: 'object',
  required: ['origin'],
  additionalProperties: false,
  properties: { origin: { type: 'string', minLength: 1, maxLength: 2048, description: 'The seller\'s origin (https://seller.example); a path is ignored.' } },
} as const;

const manifestReport = {
  type: 'object',
  required: ['url', 'outcome', 'resources'],
  additionalProperties: false,
  properties: {
    url: { type: 'string' },
    outcome: { enum: ['read', 'absent', 'failed', 'invalid'] },
    shape: { enum: ['x402-resources', 'x402-items', 'openapi'] },
    resources: COUNT,
    detail: { type: 'string' },
  },
} as const;

const originResource = (withStatus: boolean) => ({
  type: 'object',
  required: ['resource', 'method', 'outcome'],
  additionalProperties: false,
  properties: {
    resource: { type: 'string' },
    method: { type: 'string' },
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    outcome: ITEM_OUTCOME,
    reason: { type: 'string' },
    ...(withStatus ? { status: { enum: ['pending', 'listed', 'rejected', 'forgotten'] }, detail: { type: 'string' } } : {}),
  },
});

const originRecord = (withStatus: boolean) => ({
  type: 'object',
  required: ['origin', 'announcedAt', 'manifests', 'resources', 'counts', 'omitted', ...(withStatus ? [] : ['statusUrl'])],
  additionalProperties: false,
  properties: {
    origin: { type: 'string' },
    announcedAt: ISO_TIME,
    manifests: { type: 'array', items: manifestReport },
    resources: {
      type: 'array',
      description: 'Every resource queued for the probe (at most MANIFEST_MAX_RESOURCES) and the first 10 entries skipped; the rest are only counted.',
      items: originResource(withStatus),
    },
    counts: {
      type: 'object',
      description: 'How many entries of the manifests had each outcome, all of them counted.',
      additionalProperties: false,
      properties: Object.fromEntries(['queued', 'pending', 'verified', 'refused', 'skipped', 'invalid'].map((o) => [o, COUNT])),
    },
    omitted: { ...COUNT, description: 'Skipped entries counted but not listed in `resources`.' },
    ...(withStatus ? {} : { statusUrl: { type: 'string' } }),
  },
});

const upstreamStatus = {
  type: 'object',
  required: ['name', 'url', 'state', 'failures', 'lastCrawl'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    state: { enum: ['never', 'crawling', 'ok', 'error'] },
    lastStartedAt: ISO_TIME,
    lastFinishedAt: ISO_TIME,
    lastSuccessAt: ISO_TIME,
    nextCrawlAt: ISO_TIME,
    failures: COUNT,
    lastError: { type: 'string' },
    total: COUNT,
    lastCrawl: {
      type: 'object',
      additionalProperties: false,
      required: ['pages', 'notModified', 'queued', 'pending', 'verified', 'refused', 'skipped', 'invalid'],
      properties: Object.fromEntries(['pages', 'notModified', 'queued', 'pending', 'verified', 'refused', 'skipped', 'invalid'].map((k) => [k, COUNT])),
    },
  },
} as const;

export const reachSchemas = {
  OriginAnnounceRequest: originAnnounceRequest,
  OriginAnnounceAccepted: originRecord(false),
  OriginStatus: originRecord(true),
  ReachStatus: { type: 'object', required: ['upstreams'], additionalProperties: false, properties: { upstreams: { type: 'array', items: upstreamStatus } } },
} as const;
