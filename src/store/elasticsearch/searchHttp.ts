/**
 * The catalog reads' searches over plain keep-alive HTTP (undici), beside the official client that
 * does everything else. A catalog read is one or two `_search` POSTs, and the client's layers
 * around each (parameter handling, its serializer, a timer and an AbortController per request,
 * diagnostics events, the result object) cost the gateway more CPU than the request itself:
 * measured in one process on the 100k catalog, 1.06-1.25 ms per search through `client.search`
 * against 0.68-0.78 ms here (lab journal, 2026-12-02). Errors are the client's own classes
 * (ConnectionError, TimeoutError, ResponseError), so `isElasticsearchUnavailable` and every caller
 * read them as before.
 *
 * Several nodes (ELASTICSEARCH_URL a list): requests go round the nodes, and a node whose connection
 * fails is tried again only after `DEAD_FOR_MS` (the next node takes the request meanwhile), as the
 * client's ClusterConnectionPool does; when every node failed, each is tried in turn anyway.
 */
import { errors } from '@elastic/elasticsearch';
import { Pool, errors as undiciErrors } from 'undici';

const DEAD_FOR_MS = 60_000;
/** Keep-alive connections per node: the gateway's concurrent reads, without a connection per request. */
const CONNECTIONS_PER_NODE = 32;

interface Node {
  url: string;
  pool: Pool;
  /** Basic credentials of a URL such as https://user:secret@host:9200 (the client reads them so too). */
  authorization?: string;
  deadUntil: number;
}

export class SearchHttp {
  private readonly nodes: Node[];
  private next = 0;

  constructor(urls: readonly string[], timeoutMs: number) {
    this.nodes = urls.map((url) => {
      const parsed = new URL(url);
      const credentials = parsed.username ? `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` : undefined;
      return {
        url: parsed.origin,
        pool: new Pool(parsed.origin, { connections: CONNECTIONS_PER_NODE, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 30_000 }),
        ...(credentials ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } : {}),
        deadUntil: 0,
      };
    });
  }

  /** POST `path` (with its query string) with a JSON body already serialized; the parsed answer. */
  async post(path: string, body: string): Promise<unknown> {
    const now = Date.now();
    let lastError: unknown;
    for (let attempt = 0; attempt < this.nodes.length; attempt++) {
      const node = this.pick(now);
      try {
        const response = await node.pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json', ...(node.authorization ? { authorization: node.authorization } : {}) } });
        const text = await response.body.text();
        const parsed: unknown = text === '' ? {} : JSON.parse(text);
        if (response.statusCode >= 200 && response.statusCode < 300) return parsed;
        throw responseError(parsed, response.statusCode, response.headers as Record<string, string>);
      } catch (err) {
        if (err instanceof errors.ResponseError) throw err;
        if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) throw new errors.TimeoutError('Request timed out');
        if (err instanceof SyntaxError) throw new errors.DeserializationError(err.message, '');
        node.deadUntil = now + DEAD_FOR_MS;
        lastError = err;
      }
    }
    throw new errors.ConnectionError(lastError instanceof Error ? lastError.message : String(lastError));
  }

  /** The next live node in turn (every node failed recently: the next one anyway). */
  private pick(now: number): Node {
    for (let i = 0; i < this.nodes.length; i++) {
      const node = this.nodes[(this.next + i) % this.nodes.length]!;
      if (node.deadUntil <= now) {
        this.next = (this.next + i + 1) % this.nodes.length;
        return node;
      }
    }
    const node = this.nodes[this.next % this.nodes.length]!;
    this.next = (this.next + 1) % this.nodes.length;
    return node;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.nodes.map((node) => node.pool.close()));
  }
}

function responseError(body: unknown, statusCode: number, headers: Record<string, string>): errors.ResponseError {
  return new errors.ResponseError({
    body,
    statusCode,
    headers,
    warnings: null,
    meta: { context: null, name: 'search-http', request: { params: { method: 'POST', path: '' }, options: {}, id: 0 }, connection: null, attempts: 0, aborted: false },
  } as never);
}
