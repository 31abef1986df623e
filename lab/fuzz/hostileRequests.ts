/**
 * fast-check arbitraries of hostile requests to every route of the service (lab/fuzz/fuzz.ts):
 * prototype member names, bad percent-encoding and UTF-8, deep and huge JSON, wrong or lying
 * encodings and types, forged proxy and auth headers, random query parameters, and bodies that are
 * almost what each route expects.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { RawRequest } from '../lib/rawHttp.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'toString', 'prototype', '__defineGetter__', 'isPrototypeOf'];

const NASTY_STRINGS = [
  '', ' ', '\u0000', '\ud800', '\udfff', '\u202e', 'ｅｉｐ１５５:８４５３２', '%ZZ', '%ED%A0%80', '%00', '../../etc/passwd', 'eip155:84532', 'base-sepolia',
  'solana', 'mcp://victim.example@tools.example/tool', 'https://victim.example@seller.example/x', 'http://127.0.0.1:6379/', 'http://[::1]/', 'file:///etc/passwd',
  'javascript:alert(1)', '0', '-1', '1e308', '9223372036854775808', '99999999999999999999999999', 'NaN', 'null', 'true', '[]', '{}', 'lst_000000000000000000000000',
  'x'.repeat(5000), '😀'.repeat(300), "' OR 1=1 --", '{"$gt":""}', '*', '?', '#', '\\', '\r\nX-Injected: 1',
];

export const hostileString = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 12 }),
);

const hostileScalar = fc.oneof(
  hostileString,
  fc.constantFrom<unknown>(null, true, false, 0, -0, 1, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5),
  fc.integer(),
  fc.double(),
);

export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, hostileScalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(hostileString, tie('value'), { maxKeys: 5 }),
})).value;

/** Almost what a route expects: the expected keys, each with a hostile value (or left out). */
function shaped(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(keys.map((k) => [k, hostileJson])), { requiredKeys: [] });
}

const payment = shaped(['scheme', 'network', 'asset', 'amount', 'payTo', 'maxTimeoutSeconds', 'extra', 'pricing']);
const bodies: Record<string, fc.Arbitrary<unknown>> = {
  '/discovery/announce': fc.record({ resource: hostileString, origin: fc.oneof(hostileString, hostileJson), method: hostileString, challenge: fc.oneof(hostileJson, shaped(['x402Version', 'accepts', 'extensions'])) }, { requiredKeys: [] }),
  '/discovery/publish': fc.record(
    { type: fc.constantFrom('mcp', 'http', 'MCP'), resource: hostileString, name: hostileString, description: hostileJson, inputSchema: hostileJson, payment, tags: hostileJson, signals: hostileJson },
    { requiredKeys: [] },
  ),
  '/verify': fc.record({ x402Version: hostileJson, paymentPayload: fc.oneof(hostileJson, shaped(['x402Version', 'scheme', 'network', 'payload', 'accepted'])), paymentRequirements: fc.oneof(payment, hostileJson) }, { requiredKeys: [] }),
};
bodies['/discovery/optout'] = fc.record(
  {
    id: fc.oneof(hostileString, fc.constant('lst_000000000000000000000000')),
    resource: hostileString,
    method: hostileString,
    reason: fc.oneof(hostileString, fc.string({ maxLength: 400 })),
    proof: fc.oneof(hostileJson, shaped(['payTo', 'signature', 'signedAt'])),
  },
  { requiredKeys: [] },
);
bodies['/settle'] = bodies['/verify']!;
bodies['/x402/verify'] = bodies['/verify']!;
bodies['/x402/settle'] = bodies['/verify']!;

const deepJson = fc.integer({ min: 60, max: 40_000 }).chain((depth) =>
  fc.constantFrom('[', '{"a":').map((open) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`),
);

/** A JSON text, then how it is put on the wire (encoding, type, lies about both). */
const bodyBytes = (route: string): fc.Arbitrary<{ body: Buffer; headers: Array<[string, string]> }> =>
  fc
    .tuple(
      fc.oneof({ weight: 6, arbitrary: (bodies[route] ?? hostileJson).map((v) => JSON.stringify(v) ?? 'null') }, { weight: 1, arbitrary: deepJson }, { weight: 1, arbitrary: fc.string({ maxLength: 200 }) }),
      fc.constantFrom('plain', 'plain', 'plain', 'gzip', 'deflate', 'br', 'garbage-gzip', 'garbage-br', 'bad-utf8', 'huge', 'unknown-encoding'),
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'application/problem+json', ''),
    )
    .map(([text, wire, type]) => {
      const headers: Array<[string, string]> = type ? [['Content-Type', type]] : [];
      let body = Buffer.from(text, 'utf8');
      if (wire === 'gzip') body = gzipSync(body);
      if (wire === 'deflate') body = deflateSync(body);
      if (wire === 'br') body = brotliCompressSync(body);
      if (wire === 'garbage-gzip' || wire === 'garbage-br') body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), body]);
      if (wire === 'bad-utf8') body = Buffer.concat([body.subarray(0, 5), Buffer.from([0xed, 0xa0, 0x80, 0xff, 0xc3]), body.subarray(5)]);
      if (wire === 'huge') body = Buffer.alloc(200 * 1024, 0x20);
      const encoding = { gzip: 'gzip', deflate: 'deflate', br: 'br', 'garbage-gzip': 'gzip', 'garbage-br': 'br', 'unknown-encoding': 'zstd, gzip' }[wire as string];
      if (encoding) headers.push(['Content-Encoding', encoding]);
      return { body, headers };
    });

const forgedHeaders = (token: string): fc.Arbitrary<Array<[string, string]>> =>
  fc
    .record(
      {
        'X-Forwarded-For': fc.oneof(fc.ipV4(), fc.ipV6(), hostileString),
        Authorization: fc.oneof(fc.constant(`Bearer ${token}`), hostileString.map((s) => `Bearer ${s}`), hostileString),
        'X-Request-Id': hostileString,
        'X-PAYMENT': hostileString,
        Accept: hostileString,
      },
      { requiredKeys: [] },
    )
    .map((headers) => Object.entries(headers).map(([k, v]) => [k, latin1(v)] as [string, string]));

/** Header values as their UTF-8 bytes, without CR/LF (which would end the header). */
function latin1(value: string): string {
  return Buffer.from(value.replace(/[\r\n]/g, ''), 'utf8').toString('latin1');
}

/** A path segment or query value: percent-encoded, or raw bytes (bad escapes and UTF-8 included). */
const pathPiece = fc.oneof(
  hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))),
  hostileString.map((s) => latin1(s).replace(/[\s?#]/g, '%20')),
);

const queryString = fc.array(fc.tuple(fc.oneof(fc.constantFrom('q', 'query', 'network', 'type', 'maxPrice', 'asset', 'scheme', 'payTo', 'capability', 'limit', 'offset', 'cursor', 'sort', 'explain', 'id', 'resource', 'method', 'payWith', 'maxUsd', 'minUptime', 'origin', 'since'), pathPiece), pathPiece), { maxLength: 6 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

const GET_PATHS = ['/healthz', '/readyz', '/supported', '/discovery/resources', '/discovery/search', '/mcp/tools', '/discovery/announce/status', '/discovery/merchant', '/discovery/reach', '/discovery/changes', '/metrics', '/x402/supported', '/x402/discovery/resources', '/x402/discovery/search'];
const POST_PATHS = ['/discovery/announce', '/discovery/publish', '/discovery/optout', '/verify', '/settle', '/x402/verify', '/x402/settle'];

/**
 * `origins`: origins the probe may read (a local server of junk manifests, issue 43), announced
 * beside the hostile ones so the origin records they leave are measured too.
 */
export function hostileRequest(token: string, origins: string[] = []): fc.Arbitrary<RawRequest> {
  const get = fc.tuple(fc.constantFrom(...GET_PATHS), queryString).map(([path, query]) => ({ method: 'GET', target: `${path}${query}` }));
  const byId = fc.tuple(fc.constantFrom('GET /discovery/resources/', 'DELETE /discovery/publish/'), pathPiece).map(([route, id]) => {
    const [method, path] = route.split(' ');
    return { method: method!, target: `${path}${id || 'x'}` };
  });
  const post = fc.constantFrom(...POST_PATHS).chain((path) => bodyBytes(path).map((b) => ({ method: 'POST', target: path, ...b })));
  const junkOrigin = fc.constantFrom(...(origins.length ? origins : ['https://junk.invalid'])).map((origin) => {
    const body = Buffer.from(JSON.stringify({ origin }));
    return { method: 'POST', target: '/discovery/announce', body, headers: [['Content-Type', 'application/json']] as Array<[string, string]> };
  });
  const optOutDelete = bodyBytes('/discovery/optout').map((b) => ({ method: 'DELETE', target: '/discovery/optout', ...b }));
  const odd = fc.tuple(fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'BREW'), fc.constantFrom(...GET_PATHS, ...POST_PATHS, '/nowhere', '//', '/%2e%2e/')).map(([method, target]) => ({ method, target }));
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: get }, { weight: 2, arbitrary: byId }, { weight: 6, arbitrary: post }, { weight: 1, arbitrary: odd }, { weight: 1, arbitrary: junkOrigin }, { weight: 1, arbitrary: optOutDelete }),
      forgedHeaders(token),
    )
    .map(([request, headers]) => {
      const body = 'body' in request ? (request.body as Buffer) : undefined;
      const all = [...headers, ...('headers' in request ? (request.headers as Array<[string, string]>) : [])];
      if (body) all.push(['Content-Length', String(body.length)]);
      return { method: request.method, target: request.target, headers: all, ...(body ? { body } : {}) };
    });
}
