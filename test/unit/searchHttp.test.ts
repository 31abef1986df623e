import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SearchHttp } from '../../src/store/elasticsearch/searchHttp.js';

/** A stand-in Elasticsearch node: answers every POST with `answer(path, body)`. */
async function node(answer: (path: string, body: string) => { status: number; body: unknown; delayMs?: number }): Promise<{ url: string; seen: string[]; authorizations: Array<string | undefined>; close(): Promise<void> }> {
  const seen: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push(`${req.url} ${body}`);
      authorizations.push(req.headers.authorization);
      const out = answer(req.url ?? '', body);
      setTimeout(() => res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body)), out.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    authorizations,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function failure(run: Promise<unknown>): Promise<{ name: string; statusCode?: number; type?: string }> {
  try {
    await run;
  } catch (err) {
    const meta = (err as { meta?: { statusCode?: number; body?: { error?: { type?: string } } } }).meta;
    return { name: (err as Error).name, ...(meta?.statusCode ? { statusCode: meta.statusCode, type: meta.body?.error?.type } : {}) };
  }
  return assert.fail('expected a failure');
}

describe('unit: the catalog reads\' HTTP path to Elasticsearch', () => {
  it('posts the serialized body to the path and returns the parsed answer', async () => {
    const es = await node(() => ({ status: 200, body: { hits: { hits: [{ _source: { id: 'lst_a' } }] } } }));
    const reads = new SearchHttp([es.url], 5000);
    try {
      assert.deepEqual(await reads.post('/listings/_search?filter_path=hits.hits._source', '{"size":1}'), { hits: { hits: [{ _source: { id: 'lst_a' } }] } });
      assert.deepEqual(es.seen, ['/listings/_search?filter_path=hits.hits._source {"size":1}']);
    } finally {
      await reads.close();
      await es.close();
    }
  });

  it('a node URL with credentials sends them as Basic authorization (and the path without them)', async () => {
    const es = await node(() => ({ status: 200, body: {} }));
    const reads = new SearchHttp([es.url.replace('http://', 'http://elastic:s%3Acret@')], 5000);
    try {
      await reads.post('/listings/_search', '{}');
      assert.deepEqual(es.authorizations, [`Basic ${Buffer.from('elastic:s:cret').toString('base64')}`]);
      assert.deepEqual(es.seen, ['/listings/_search {}']);
    } finally {
      await reads.close();
      await es.close();
    }
  });

  it('an error answer is the client\'s ResponseError, with its status and error type', async () => {
    const es = await node(() => ({ status: 404, body: { error: { type: 'index_not_found_exception' }, status: 404 } }));
    const reads = new SearchHttp([es.url], 5000);
    try {
      assert.deepEqual(await failure(reads.post('/x/_search', '{}')), { name: 'ResponseError', statusCode: 404, type: 'index_not_found_exception' });
    } finally {
      await reads.close();
      await es.close();
    }
  });

  it('a node that refuses connections is passed over for the next; none reachable is a ConnectionError', async () => {
    const up = await node(() => ({ status: 200, body: { ok: true } }));
    const down = await node(() => ({ status: 200, body: {} }));
    const downUrl = down.url;
    await down.close();
    const reads = new SearchHttp([downUrl, up.url], 5000);
    try {
      for (let i = 0; i < 4; i++) assert.deepEqual(await reads.post('/x/_search', '{}'), { ok: true });
      assert.equal(up.seen.length, 4);
    } finally {
      await reads.close();
      await up.close();
    }
    const none = new SearchHttp([downUrl], 5000);
    try {
      assert.equal((await failure(none.post('/x/_search', '{}'))).name, 'ConnectionError');
    } finally {
      await none.close();
    }
  });

  it('an answer slower than the timeout is a TimeoutError', async () => {
    const es = await node(() => ({ status: 200, body: {}, delayMs: 2000 }));
    const reads = new SearchHttp([es.url], 100);
    try {
      assert.equal((await failure(reads.post('/x/_search', '{}'))).name, 'TimeoutError');
    } finally {
      await reads.close();
      await es.close();
    }
  });
});
