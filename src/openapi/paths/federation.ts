/** The upstream catalogs this service lists from (docs/federation.md). */
import { json, operation, ref, type OpenApiObject } from '../builders.js';

export const federationPaths: Record<string, OpenApiObject> = {
  '/discovery/reach': {
    get: operation('reachStatus', {
      tags: ['operations'],
      summary: 'The upstream catalogs this service lists from, each with the state and counts of its last crawl',
      responses: { 200: json('Every configured upstream (REACH_UPSTREAMS, REACH_CONFIG).', ref('ReachStatus')) },
      examples: [{ summary: 'The upstreams', status: 200 }],
    }),
  },
};
