/**
 * The merchant view (GET /discovery/merchant, the MCP tool get_merchant, the web catalog's merchant
 * page): every live listing that pays one `payTo`, and what they add up to.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { listingResponseSchema } from './listing.js';

export const merchantSummarySchema = {
  type: 'object',
  title: 'MerchantSummary',
  required: ['listings', 'http', 'mcp', 'networks', 'settleCount7d', 'healthChecked'],
  additionalProperties: false,
  properties: {
    listings: { type: 'integer', minimum: 0, description: 'Live listings whose payment.payTo is this address.' },
    http: { type: 'integer', minimum: 0 },
    mcp: { type: 'integer', minimum: 0 },
    networks: { type: 'array', items: { type: 'string' }, description: 'Networks of their primary payments, most listings first.' },
    settleCount7d: { type: 'integer', minimum: 0, description: 'Settlements of the last 7 days over all its listings.' },
    lastSettled: { type: 'string', format: 'date-time', description: 'Most recent settlement of any of its listings; absent when none.' },
    firstSeen: { type: 'string', format: 'date-time', description: 'When its oldest live listing was first seen.' },
    healthChecked: { type: 'integer', minimum: 0, description: 'Listings with active health checks.' },
    uptime7d: { type: 'number', minimum: 0, maximum: 1, description: 'Mean signals.health.uptime7d of the checked listings; absent when none was checked.' },
  },
} as const;

export const merchantViewSchema = {
  type: 'object',
  title: 'MerchantView',
  required: ['payTo', 'summary', 'results'],
  additionalProperties: false,
  properties: {
    payTo: { type: 'string', description: 'The address as asked (compared case-insensitively).' },
    summary: merchantSummarySchema,
    results: { type: 'array', items: listingResponseSchema, description: 'Its listings, newest first.' },
    nextCursor: { type: 'string', minLength: 1, description: 'Pass as `cursor` (with the same payTo) for the next page.' },
  },
} as const;

export type MerchantSummary = FromSchema<typeof merchantSummarySchema>;
