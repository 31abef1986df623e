/**
 * The floor under the gateway (lab/bench/gateway-floor.ts): a bare Node process that answers
 * `GET /<i>` by POSTing the i-th prepared search to Elasticsearch over undici (the client the
 * service's reads use, src/store/elasticsearch/searchHttp.ts) and writing the answer back, with no
 * framework, validation, planning or listing shape. What it costs per request is what any Node
 * gateway in front of Elasticsearch pays for these very requests and answers.
 *
 *   PORT=N node --import tsx lab/lib/relayServer.ts REQUESTS.json pass|reshape|express ES_URL
 *
 * `pass` writes Elasticsearch's bytes back as they came; `reshape` parses them and writes the
 * hits' `_source` objects as a page (`{results: [...]}`), the least a gateway that answers in its
 * own shape does; `express` does what `reshape` does as the one route of a bare Express app (its
 * router, request and response objects, the service's query parser). Prints "listening on PORT"
 * once ready.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import express from 'express';
import { Pool } from 'undici';

const MODES = ['pass', 'reshape', 'express'];
const [file, mode, esUrl] = process.argv.slice(2);
if (!file || !mode || !MODES.includes(mode) || !esUrl) {
  process.stderr.write('usage: relayServer REQUESTS.json pass|reshape|express ES_URL\n');
  process.exit(2);
}
const requests = JSON.parse(readFileSync(file, 'utf8')) as Array<{ path: string; body: string }>;
const pool = new Pool(new URL(esUrl).origin, { connections: 32, keepAliveTimeout: 30_000 });

function relay(req: http.IncomingMessage, res: http.ServerResponse): void {
  const item = requests[Number((req.url ?? '/').slice(1)) % requests.length];
  if (!item) {
    res.statusCode = 404;
    res.end();
    return;
  }
  pool
    .request({ method: 'POST', path: item.path, body: item.body, headers: { 'content-type': 'application/json' } })
    .then(async (answer) => {
      const text = await answer.body.text();
      const out =
        mode === 'pass'
          ? Buffer.from(text)
          : Buffer.from(JSON.stringify({ results: ((JSON.parse(text) as { hits?: { hits?: Array<{ _source?: unknown }> } }).hits?.hits ?? []).map((hit) => hit._source) }));
      res.statusCode = answer.statusCode === 200 ? 200 : 502;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', out.length);
      res.end(out);
    })
    .catch(() => {
      res.statusCode = 502;
      res.end();
    });
}

let handler: http.RequestListener = relay;
if (mode === 'express') {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.get('/:i', (req, res) => relay(req, res));
  handler = app;
}
const server = http.createServer(handler);
server.keepAliveTimeout = 30_000;
const port = Number(process.env.PORT ?? 0);
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening on ${port}\n`));
