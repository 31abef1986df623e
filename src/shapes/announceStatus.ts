/**
 * GET /discovery/announce/status's answer: one JSON Schema and the type derived from it, used by
 * the announce service that builds it, the OpenAPI document that publishes it and the web page's
 * seller view that shows it (src/web/client imports the type).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { LISTING_ID_SOURCE } from '../core/listingId.js';

const ISO_TIME = { type: 'string', format: 'date-time' } as const;

export const probeStatusSchema = { type: 'string', enum: ['pending', 'listed', 'rejected'] } as const;

export const announceStatusSchema = {
  type: 'object',
  required: ['id', 'resource', 'method', 'status'],
  additionalProperties: false,
  properties: {
    // The listing's id: the announce's id, or the templated one when the 402 declared a routeTemplate.
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    // The id the announce answered, when it differs from the listing's.
    announcedId: { type: 'string', pattern: LISTING_ID_SOURCE },
    resource: { type: 'string' },
    method: { type: 'string' },
    routeTemplate: { type: 'string' },
    status: probeStatusSchema,
    reason: {
      type: 'string',
      description:
        'Why it is rejected: not_402, redirect, invalid_challenge, requirements_mismatch, blocked_address, dns_failure, unreachable, body_too_large, invalid_url, invalid_listing, resource_mismatch, opted_out, stale, unpublished, operator, probe_failed (docs/announce.md).',
    },
    detail: { type: 'string' },
    announcedAt: ISO_TIME,
    lastProbedAt: ISO_TIME,
    listedAt: ISO_TIME,
    nextProbeAt: ISO_TIME,
  },
} as const;

export type AnnounceStatus = FromSchema<typeof announceStatusSchema>;
