/** GET /openapi.json: the OpenAPI 3.1 document of every route (src/openapi/document.ts). */
import { Router } from 'express';
import { openApiDocument } from '../../openapi/document.js';

export function openApiRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  return router;
}
