/**
 * The web catalog (docs/web.md): the page at /, /listings/{id} and /sellers (one shell; the client
 * shows the view the path names), and its built script and styles.
 */
import { Router, type Response } from 'express';
import { NotFound } from '../core/errors.js';
import { PAGE_HTML, PAGE_SECURITY_HEADERS } from './page.js';
import { WebAssets } from './assets.js';

/** Paths the client routes itself; keep in step with src/web/client/router.ts. */
export const PAGE_PATHS = ['/', '/listings/:id', '/sellers'];

export function webRoutes(assets = new WebAssets()): Router {
  const router = Router();
  router.get(PAGE_PATHS, (_req, res) => {
    res.set({ ...PAGE_SECURITY_HEADERS, 'Cache-Control': 'no-cache' }).type('html').send(PAGE_HTML);
  });
  const serve = (name: 'app.js' | 'app.css', type: string) => (req: { headers: Record<string, unknown> }, res: Response) => {
    const asset = assets.get(name);
    if (!asset) throw new NotFound(`The web client is not built: run npm run build:web (part of npm run build).`);
    res.set({ ETag: asset.etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    if (req.headers['if-none-match'] === asset.etag) {
      res.status(304).end();
      return;
    }
    res.type(type).send(asset.body);
  };
  router.get('/assets/app.js', serve('app.js', 'text/javascript'));
  router.get('/assets/app.css', serve('app.css', 'text/css'));
  return router;
}
