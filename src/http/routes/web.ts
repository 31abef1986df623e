/**
 * The web catalog (docs/web.md): the page at /, /listings/{id} and /sellers (one shell; the client
 * shows the view the path names), and its built script and styles. The page and the client live
 * in src/web; this is only the router that serves them.
 */
import { Router, type Response } from 'express';
import { NotFound } from '../../core/errors.js';
import { PAGE_HTML, PAGE_SECURITY_HEADERS } from '../../web/page.js';
import { WebAssets } from '../../web/assets.js';
import { PATHS } from '../paths.js';

export function webRoutes(assets = new WebAssets()): Router {
  const router = Router();
  router.get([...PATHS.webPages], (_req, res) => {
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
  router.get(PATHS.webScript, serve('app.js', 'text/javascript'));
  router.get(PATHS.webStyles, serve('app.css', 'text/css'));
  return router;
}
