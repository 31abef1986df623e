/**
 * A write is acknowledged only when Elasticsearch can index it (issue 9, defect 4): depth and size
 * bounds on tool schemas and every nested member are checked by the validator, for every producer
 * (publish, import, announce/probe), and a listing at every bound at once is indexed.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { LISTING_BOUNDS } from '../src/catalog/validation.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput, mcpInput } from './support/listings.js';
import { answers, startServer, v1Challenge, type LocalServer } from './support/sellers.js';
import { announce, settled } from './support/announcing.js';

/** A JSON Schema `levels` objects deep along `properties.a` (each level is two JSON levels). */
function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** Nested to exactly `depth` levels of objects (the outermost counting as 1). */
function nestedObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { n: value };
  return value;
}

describe('listing bounds: nothing is acknowledged that Elasticsearch would refuse', function () {
  this.timeout(30_000);
  let h: Harness;
  let seller: LocalServer;
  let token: string;

  before(async () => {
    seller = await startServer({});
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${seller.port}`, RATE_LIMIT_ANNOUNCE: 'off', CATALOG_MAX_ATTEMPTS: '1' });
    token = (await h.container.publishing.tokens.issue(['tools.example'], 'bounds')).secret;
  });
  after(async () => {
    await h?.close();
    await seller?.close();
  });

  const publish = (body: unknown) =>
    request(h.app).post('/discovery/publish').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(JSON.stringify(body));

  const noDeadLetters = async () => assert.deepEqual(await h.container.catalog.queue.deadLetters(), []);

  it('publish: a 600-level inputSchema (22 KB) is 400 naming inputSchema, and nothing is written', async () => {
    const res = await publish(mcpInput({ resource: 'mcp://tools.example/deep_tool', name: 'deep_tool', inputSchema: nestedSchema(600) }));
    assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.code, 'nesting_too_deep');
    assert.match(res.body.errors[0].path, /^inputSchema\.properties\.a\./);
    assert.equal((await h.container.catalog.queue.stats()).depth, 0);
  });

  it('publish: an inputSchema deeper than the bound but within the body limit is 400 invalid_listing on inputSchema', async () => {
    const res = await publish(mcpInput({ resource: 'mcp://tools.example/deep_tool', name: 'deep_tool', inputSchema: nestedSchema(20) }));
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'invalid_listing');
    assert.deepEqual(res.body.errors, [{ path: 'inputSchema', message: `must not nest objects and arrays deeper than ${LISTING_BOUNDS.schemaDepth} levels` }]);
  });

  it('publish: an outputSchema over the size bound is 400 invalid_listing on outputSchema', async () => {
    const outputSchema = { type: 'object', description: 'x'.repeat(LISTING_BOUNDS.schemaBytes), properties: {} };
    const res = await publish(mcpInput({ resource: 'mcp://tools.example/big_tool', name: 'big_tool', outputSchema }));
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, [{ path: 'outputSchema', message: `must be at most ${LISTING_BOUNDS.schemaBytes} bytes as JSON` }]);
  });

  it('import: deep schemas, deep extras and dates Elasticsearch cannot store are rejected per entry, the rest lands', async () => {
    const deepExtra = httpInput({ resource: 'https://bounds.example/extra' });
    deepExtra.accepts = [{ ...deepExtra.payment, extra: nestedObject(LISTING_BOUNDS.extraDepth + 1) }];
    const result = await h.container.catalog.writer.upsertMany(
      [
        mcpInput({ resource: 'mcp://tools.example/deeper', name: 'deeper', inputSchema: nestedSchema(20_000) }),
        deepExtra,
        httpInput({ resource: 'https://bounds.example/leap', signals: { lastSettled: '2026-12-31T23:59:60Z' } }),
        httpInput({ resource: 'https://bounds.example/year', signals: { lastSettled: '9999-12-31T23:59:59-23:59' } }),
        httpInput({ resource: 'https://bounds.example/fine', signals: { lastSettled: '2026-11-01T10:00:00+02:00' } }),
      ],
      { source: 'import' },
    );
    assert.deepEqual(
      result.rejected.map((r) => [r.index, r.errors.map((e) => e.path)]),
      [
        [0, ['inputSchema']],
        [1, ['accepts.0.extra']],
        [2, ['signals.lastSettled']],
        [3, ['signals.lastSettled']],
      ],
    );
    const [fine] = result.accepted;
    await waitFor(async () => (await h.container.catalog.reader.get(fine!.id)) !== undefined);
    await noDeadLetters();
  });

  it('announce: a 402 whose extra nests too deep is rejected as invalid_listing, not listed then dead-lettered', async () => {
    seller.route('/deep-extra', answers.v1(() => {
      // Two options: with one, the listing has no `accepts` and its extra is not kept.
      const challenge = v1Challenge(seller.url('/deep-extra')) as { accepts: Array<Record<string, unknown>> };
      challenge.accepts.push({ ...challenge.accepts[0]!, maxAmountRequired: '2000', extra: nestedObject(200) });
      return challenge;
    }));
    const { id } = await announce(h.app, { resource: seller.url('/deep-extra') });
    const state = await settled(h.app, id);
    assert.equal(state.status, 'rejected');
    assert.equal(state.reason, 'invalid_listing');
    assert.match(String(state.detail), /accepts\.1\.extra: must not nest/);
    await noDeadLetters();
  });

  it('a listing at every bound at once is indexed (no dead letter)', async () => {
    const astral = '\u{1F600}';
    // Every path character is 4 UTF-8 bytes, 12 once percent-encoded: the canonical URL is just under its bound.
    const path = astral.repeat(Math.floor((LISTING_BOUNDS.resourceBytes - 40) / 12));
    const edge = httpInput({
      resource: `https://bounds.example/${path}`,
      describe: { title: astral.repeat(100), description: astral.repeat(1000), tags: Array.from({ length: 32 }, (_, i) => `${i}${astral.repeat(31)}`), inputs: { ['\u0000']: 'string', __proto__x: 'x' } },
    });
    edge.accepts = Array.from({ length: 3 }, (_, i) => ({ ...edge.payment, amount: String(i + 1), extra: nestedObject(LISTING_BOUNDS.extraDepth) }));
    // A schema at its depth bound, padded up to its size bound, with names Elasticsearch would refuse in a mapped object.
    const inputSchema = nestedSchema(Math.floor((LISTING_BOUNDS.schemaDepth - 1) / 2));
    (inputSchema.properties as Record<string, unknown>)[''] = { type: 'string' };
    (inputSchema.properties as Record<string, unknown>)['a..b'] = { type: 'string', description: 'p'.repeat(LISTING_BOUNDS.schemaBytes - 2000) };
    const tool = mcpInput({ resource: 'mcp://tools.example/edge_tool', name: 'e'.repeat(128), inputSchema, tags: ['x'.repeat(64)] });
    const result = await h.container.catalog.writer.upsertMany([edge, tool], { source: 'import' });
    assert.deepEqual(result.rejected, []);
    for (const { id } of result.accepted) await waitFor(async () => (await h.container.catalog.reader.get(id)) !== undefined, 10_000);
    await noDeadLetters();
  });
});
