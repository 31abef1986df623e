/**
 * Announce (open, rate limited per client), the announce status lookup, and one listing by id.
 * Thin: the services decide; these only map HTTP to calls.
 */
import { Router, type RequestHandler } from 'express';
import type { AnnounceService } from '../../ingest/announceService.js';
import { ProblemError, problems } from '../problem.js';

export interface AnnounceRouteDeps {
  announce: AnnounceService;
  /** Applied to POST /discovery/announce only. */
  announceLimit?: RequestHandler;
}

export function announceRoutes(deps: AnnounceRouteDeps): Router {
  const router = Router();
  const limited: RequestHandler[] = deps.announceLimit ? [deps.announceLimit] : [];

  router.post('/discovery/announce', ...limited, async (req, res) => {
    const result = await deps.announce.announce(req.body);
    const statusUrl = `/discovery/announce/status?id=${result.id}`;
    res.status(202).location(statusUrl).json({ ...result, statusUrl });
  });

  router.get('/discovery/announce/status', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const unknown = Object.keys(query).filter((k) => !['id', 'resource', 'method'].includes(k));
    if (unknown.length > 0) {
      throw new ProblemError(400, 'unknown_filter', `Unknown query parameter ${unknown[0]}; use id, or resource and method.`, {
        errors: unknown.map((path) => ({ path, message: 'is not an accepted parameter' })),
      });
    }
    const single = (name: string) => {
      const value = query[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value.length === 0 || value.length > 2048) {
        throw new ProblemError(400, 'invalid_filter_value', `${name} must be given once, as a non-empty string.`, {
          errors: [{ path: name, message: 'must be a single non-empty value' }],
        });
      }
      return value;
    };
    const id = single('id');
    const resource = single('resource');
    const method = single('method');
    res.json(await deps.announce.status({ ...(id ? { id } : {}), ...(resource ? { resource } : {}), ...(method ? { method } : {}) }));
  });

  router.get('/discovery/resources/:id', async (req, res) => {
    const listing = await deps.announce.findListing(req.params.id);
    if (!listing) throw problems.notFound(`No listing ${req.params.id}.`);
    res.json(listing);
  });

  return router;
}
