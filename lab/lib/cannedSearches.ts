/**
 * Elasticsearch with its searches answered from memory, for measuring the gateway alone
 * (`npm run bench -- gateway-pair --canned`): a reverse proxy on 127.0.0.1 in this process that
 * forwards everything to the real node, except that a `_search` POST seen before (same path, same
 * body bytes but for the recency decay's `origin`, the epoch milliseconds of each search) is
 * answered with the bytes the node gave the first time. The gateway then does all
 * of its work on real answers, while Elasticsearch does none of it: its CPU no longer competes
 * with the gateway's on shared cores, which is most of the noise of a gateway measurement.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface CannedSearches {
  url: string;
  /** Searches answered from memory so far, and forwarded. */
  counts(): { canned: number; forwarded: number };
  close(): Promise<void>;
}

/** Answers bigger than this are forwarded every time, not kept (a scan or an export, not a page). */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;
/** The recency decay's origin: `now` in epoch milliseconds, other in every search. */
const EPOCH_ORIGIN = /"origin":\d{13}\b/g;

export async function startCannedSearches(esUrl: string): Promise<CannedSearches> {
  const pool = new Pool(new URL(esUrl).origin, { connections: 32, keepAliveTimeout: 30_000 });
  const kept = new Map<string, { status: number; type: string; body: Buffer }>();
  let canned = 0;
  let forwarded = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const search = req.method === 'POST' && /\/_search(\?|$)/.test(path);
      const key = search ? createHash('sha256').update(path).update('\n').update(body.toString('utf8').replace(EPOCH_ORIGIN, '"origin":0')).digest('base64') : undefined;
      const hit = key ? kept.get(key) : undefined;
      if (hit) {
        canned++;
        res.writeHead(hit.status, { 'content-type': hit.type, 'content-length': hit.body.length });
        res.end(hit.body);
        return;
      }
      forwarded++;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))) as Record<string, string>;
      pool
        .request({ method: req.method as 'GET', path, headers, ...(body.length > 0 ? { body } : {}) })
        .then(async (answer) => {
          const bytes = Buffer.from(await answer.body.arrayBuffer());
          const type = String(answer.headers['content-type'] ?? 'application/json');
          if (key && answer.statusCode === 200 && bytes.length <= MAX_KEPT_BYTES) kept.set(key, { status: 200, type, body: bytes });
          const out: Record<string, string | number> = { 'content-type': type, 'content-length': bytes.length };
          for (const name of ['x-elastic-product', 'warning']) if (answer.headers[name]) out[name] = String(answer.headers[name]);
          res.writeHead(answer.statusCode, out);
          res.end(bytes);
        })
        .catch((err: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(err));
        });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ canned, forwarded }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}
