/** Listing lifecycle (docs/changes.md): the change feed for mirrors and one listing's history. */
import { LISTING_ID_SOURCE } from '../../core/listingId.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, HISTORY_MAX_LIMIT } from '../../changes/feedRequest.js';
import { json, operation, pathParameter, queryParameter, ref, type OpenApiObject } from '../builders.js';
import { DEMO_TRANSLATION_ID } from './catalog.js';

const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const ID = { type: 'string', pattern: LISTING_ID_SOURCE } as const;
const PRICE = {
  type: 'object',
  required: ['scheme', 'network', 'asset', 'amount'],
  additionalProperties: false,
  properties: { scheme: { type: 'string' }, network: { type: 'string' }, asset: { type: 'string' }, amount: { type: 'string', pattern: '^[0-9]+$' } },
} as const;

const feedPage = {
  type: 'object',
  required: ['changes', 'nextSince', 'hasMore'],
  additionalProperties: false,
  properties: {
    changes: {
      type: 'array',
      description: 'Oldest change first; each listing at most once (the feed is compacted).',
      items: {
        oneOf: [
          { type: 'object', required: ['id', 'listing'], additionalProperties: false, properties: { id: ID, listing: ref('Listing') } },
          {
            type: 'object',
            description: 'Tombstone of a removed listing.',
            required: ['id', 'removed', 'removedAt', 'reason'],
            additionalProperties: false,
            properties: {
              id: ID,
              removed: { const: true },
              removedAt: ISO_TIME,
              reason: { type: 'string', enum: ['unpublished', 'probe_failed', 'stale', 'operator', 'opted_out', 'deleted'] },
            },
          },
        ],
      },
    },
    nextSince: { type: 'string', description: 'Opaque, tamper-evident token: pass as since for what changed after this page.' },
    hasMore: { type: 'boolean', description: 'More changes are already waiting: ask again at once.' },
  },
} as const;

const event = (type: string, properties: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['type', 'at', ...Object.keys(properties)],
  additionalProperties: false,
  properties: { type: { const: type }, at: ISO_TIME, ...properties },
});

const historyPage = {
  type: 'object',
  required: ['id', 'events'],
  additionalProperties: false,
  properties: {
    id: ID,
    events: {
      type: 'array',
      maxItems: HISTORY_MAX_LIMIT,
      description: 'Newest first.',
      items: {
        oneOf: [
          event('first_seen', { price: PRICE }),
          event('price_changed', { from: PRICE, to: PRICE }),
          event('schema_changed'),
          event('description_changed'),
          event('removed', { reason: { type: 'string', enum: ['unpublished', 'probe_failed', 'stale', 'operator', 'opted_out'] } }),
          event('relisted'),
          {
            type: 'object',
            description: 'The first settlement credited to the listing; transaction: the mined transaction that moved it.',
            required: ['type', 'at'],
            additionalProperties: false,
            properties: { type: { const: 'first_settled' }, at: ISO_TIME, transaction: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } },
          },
        ],
      },
    },
  },
} as const;

export const changesPaths: Record<string, OpenApiObject> = {
  '/discovery/changes': {
    get: operation('listChanges', {
      tags: ['lifecycle'],
      summary: 'Change feed for mirrors: listings created or changed since a token, tombstones of removed ones',
      parameters: [
        queryParameter('since', 'The previous page\'s nextSince; absent: from the beginning.', { type: 'string', minLength: 1 }),
        queryParameter('limit', 'Changes per page.', { type: 'integer', minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT }),
      ],
      responses: { 200: json('A page of changes.', feedPage) },
      problems: { 400: ['unknown_filter', 'invalid_filter_value', 'invalid_cursor'], 429: ['rate_limited'], 503: ['search_unavailable', 'service_unavailable'] },
      examples: [
        { summary: 'From the beginning', status: 200, query: { limit: '2' } },
        { summary: 'Limit out of bounds', status: 400, query: { limit: '1001' } },
        { summary: 'Tampered token', status: 400, query: { since: 'abc.def' } },
        { summary: 'Unknown parameter', status: 400, query: { cursor: 'x' } },
      ],
    }),
  },
  '/discovery/resources/{id}/history': {
    get: operation('getResourceHistory', {
      tags: ['lifecycle'],
      summary: 'First seen, price, schema and description changes, removals and relistings of one listing, newest first',
      parameters: [
        pathParameter('id', 'Listing id.', ID),
        queryParameter('limit', 'Events.', { type: 'integer', minimum: 1, maximum: HISTORY_MAX_LIMIT, default: HISTORY_MAX_LIMIT }),
      ],
      responses: { 200: json('The listing\'s history.', historyPage) },
      problems: { 400: ['unknown_filter', 'invalid_filter_value'], 404: ['not_found'], 429: ['rate_limited'], 503: ['search_unavailable', 'service_unavailable'] },
      examples: [
        { summary: 'A demo listing', status: 200, params: { id: DEMO_TRANSLATION_ID } },
        { summary: 'Unknown id', status: 404, params: { id: 'lst_000000000000000000000000' } },
        { summary: 'Limit out of bounds', status: 400, params: { id: DEMO_TRANSLATION_ID }, query: { limit: '51' } },
      ],
    }),
  },
};
