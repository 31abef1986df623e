/**
 * Listing inputs for the indexability property of lab/fuzz/fuzz.ts: every field a producer can set,
 * filled with hostile text (astral and lone-surrogate code points, control characters, long
 * strings, odd keys) and nested members near and past their bounds. The validator is expected to
 * refuse some; whatever it accepts, Elasticsearch must index.
 */
import fc from 'fast-check';
import { hostileJson, hostileString } from './hostileRequests.js';

const text = (maxLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength }) },
    { weight: 1, arbitrary: hostileString },
  );
const digits = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '9223372036854775807', '9223372036854775808', '007') },
);

/** Nested `depth` levels, to land on both sides of the bounds. */
const nested = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) }, { weight: 1, arbitrary: fc.integer({ min: 9, max: 45 }) }).chain((depth) =>
  hostileJson.map((leaf) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { properties: value };
    return value;
  }),
);

/** A JSON Schema `depth` levels deep with hostile names and descriptions (valid against the meta-schema). */
const toolSchema = fc
  .tuple(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 14 }) }, { weight: 1, arbitrary: fc.integer({ min: 15, max: 25 }) }), text(20), text(200), fc.array(text(10), { maxLength: 3 }))
  .map(([depth, name, description, required]) => {
    let schema: Record<string, unknown> = { type: 'string', description };
    for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { [name]: schema, other: { type: 'number' } } };
    return { type: 'object', properties: { [name]: schema }, required };
  });

const payment = fc.record(
  {
    scheme: fc.constantFrom('exact', 'upto'),
    network: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('eip155:84532', 'base', 'BASE-SEPOLIA', 'solana', 'cosmos:cosmoshub-4', '__proto__') }, { weight: 1, arbitrary: text(20) }),
    asset: text(130).filter((s) => s.length > 0),
    amount: digits,
    payTo: text(130).filter((s) => s.length > 0),
    maxTimeoutSeconds: fc.integer({ min: 0, max: 2 ** 31 }),
  },
  { requiredKeys: ['scheme', 'network', 'asset', 'amount'] },
);

const resourcePath = fc.array(text(30), { maxLength: 8 }).map((parts) => parts.map((p) => p.replace(/[/?#]/g, '')).join('/'));
const signals = fc.record(
  { lastSettled: fc.oneof(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59Z') }).map((d) => d.toISOString()), fc.constantFrom('2026-12-31T23:59:60Z', '9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00Z')), settleCount7d: fc.integer({ min: 0, max: 2 ** 31 }), rejectionRate7d: fc.double({ min: 0, max: 1, noNaN: true }) },
  { requiredKeys: [] },
);

const http = fc.record(
  {
    type: fc.constant('http' as const),
    resource: fc.tuple(fc.constantFrom('https://', 'http://', 'HTTPS://'), fc.domain(), resourcePath).map(([scheme, host, path]) => `${scheme}${host}/${path}`),
    method: fc.constantFrom('GET', 'post', 'DELETE', 'BREW'),
    routeTemplate: resourcePath.map((p) => `/${p}/:id`),
    payment,
    accepts: fc.array(fc.tuple(payment, nested).map(([p, extra]) => ({ ...p, extra: { e: extra } })), { maxLength: 4 }),
    describe: fc.record({ title: text(220), description: text(300), tags: fc.array(text(70), { maxLength: 34 }), inputs: fc.dictionary(text(20), text(30), { maxKeys: 6 }) }, { requiredKeys: [] }),
    signals,
  },
  { requiredKeys: ['type', 'resource', 'payment'] },
);

const mcp = fc.record(
  {
    type: fc.constant('mcp' as const),
    resource: fc.tuple(fc.domain(), fc.stringMatching(/^[A-Za-z0-9_.:-]{1,20}$/)).map(([host, tool]) => `mcp://${host}/${tool}`),
    name: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,128}$/),
    description: text(300),
    inputSchema: toolSchema,
    outputSchema: toolSchema,
    payment: fc.tuple(payment, fc.record({ unit: text(70), pricePerUnit: digits })).map(([p, pricing]) => ({ ...p, pricing })),
    tags: fc.array(text(70), { maxLength: 34 }),
    signals,
  },
  { requiredKeys: ['type', 'resource', 'name', 'description', 'inputSchema', 'payment'] },
);

export const indexableListing: fc.Arbitrary<unknown> = fc.oneof(http, mcp);
