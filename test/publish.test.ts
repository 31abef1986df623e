import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { mcpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';

const PAYMENT = { scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '2500', payTo: '0x1111111111111111111111111111111111111111' };

function tool(overrides: Record<string, unknown> = {}) {
  return {
    type: 'mcp',
    resource: 'mcp://tools.acme.test/geocode_address',
    name: 'geocode_address',
    description: 'Turns a postal address into latitude and longitude coordinates.',
    inputSchema: { type: 'object', properties: { address: { type: 'string' } }, required: ['address'] },
    outputSchema: { type: 'object', properties: { lat: { type: 'number' }, lng: { type: 'number' } } },
    tags: ['geo', 'maps'],
    payment: PAYMENT,
    ...overrides,
  };
}

describe('POST/DELETE /discovery/publish with seller tokens', function () {
  this.timeout(30_000);
  let h: Harness;
  let acme: string;
  let acmeId: string;
  let other: string;

  before(async () => {
    h = await startHarness();
    const issued = await h.container.publishing.tokens.issue(['tools.acme.test', '*.acme-cdn.test'], 'acme');
    acme = issued.secret;
    acmeId = issued.token.id;
    other = (await h.container.publishing.tokens.issue(['other.test'], 'other')).secret;
  });
  after(() => h.close());

  const publish = (body: unknown, token?: string) => {
    const req = request(h.app).post('/discovery/publish').set('Content-Type', 'application/json');
    if (token !== undefined) req.set('Authorization', `Bearer ${token}`);
    return req.send(JSON.stringify(body));
  };

  const searchIds = async (q: string): Promise<string[]> => {
    const res = await request(h.app).get('/mcp/tools').query({ q }).expect(200);
    return (res.body.results as Array<{ id: string }>).map((r) => r.id);
  };

  describe('authentication', () => {
    it('no token: 401 unauthorized with a Bearer challenge', async () => {
      const res = await publish(tool()).expect(401);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.body.code, 'unauthorized');
      assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
      assert.doesNotMatch(String(res.headers['www-authenticate']), /invalid_token/);
    });

    it('a non-Bearer Authorization header: 401 with the challenge', async () => {
      const res = await request(h.app).post('/discovery/publish').set('Authorization', 'Basic dXNlcjpwdw==').send(tool()).expect(401);
      assert.equal(res.body.code, 'unauthorized');
      assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
    });

    it('unknown or malformed token: 401 with error="invalid_token"', async () => {
      for (const token of [`pdsk_${'A'.repeat(43)}`, 'not-a-token']) {
        const res = await publish(tool(), token).expect(401);
        assert.equal(res.body.code, 'unauthorized');
        assert.match(String(res.headers['www-authenticate']), /^Bearer .*error="invalid_token"/);
      }
    });

    it('revoked token: 401, and list shows it revoked without the secret', async () => {
      const { token, secret } = await h.container.publishing.tokens.issue(['tools.acme.test'], 'to-revoke');
      await publish(tool({ name: 'revoked_probe', resource: 'mcp://tools.acme.test/revoked_probe' }), secret).expect(201);
      await h.container.publishing.tokens.revoke(token.id);
      const res = await publish(tool(), secret).expect(401);
      assert.match(res.body.detail, /revoked/);
      const listed = (await h.container.publishing.tokens.list()).find((t) => t.id === token.id);
      assert.ok(listed?.revokedAt);
      assert.doesNotMatch(JSON.stringify(listed), /pdsk_/);
    });

    it("a resource on another seller's host: 403 forbidden_resource", async () => {
      const res = await publish(tool({ resource: 'mcp://tools.acme.test/geocode_address' }), other).expect(403);
      assert.equal(res.body.code, 'forbidden_resource');
      assert.match(res.body.detail, /other\.test/);
    });

    it('a wildcard binding covers sub-domains but not the bare domain', async () => {
      await publish(tool({ name: 'edge_tool', resource: 'mcp://eu.acme-cdn.test/edge_tool' }), acme).expect(201);
      await publish(tool({ name: 'edge_tool', resource: 'mcp://acme-cdn.test/edge_tool' }), acme).expect(403);
    });
  });

  describe('validation', () => {
    it('every invalid field is listed in one 400 invalid_listing', async () => {
      const body = {
        type: 'http',
        resource: 'https://tools.acme.test/x',
        name: 'has spaces',
        inputSchema: { type: 'array' },
        outputSchema: 'nope',
        tags: 'geo',
        payment: { scheme: 'flat', network: 'moon', asset: 'USDC', amount: '1.5', pricing: { unit: 'token' } },
        price: 3,
        signals: { settleCount7d: 1000 },
      };
      const res = await publish(body, acme).expect(400);
      assert.equal(res.body.code, 'invalid_listing');
      const paths = (res.body.errors as Array<{ path: string; message: string }>).map((e) => e.path).sort();
      for (const path of [
        'type',
        'resource',
        'name',
        'description',
        'inputSchema.type',
        'outputSchema',
        'tags',
        'payment.scheme',
        'payment.network',
        'payment.amount',
        'payment.pricing.pricePerUnit',
        'price',
        'signals',
      ]) {
        assert.ok(paths.includes(path), `${path} missing from ${paths.join(', ')}`);
      }
      for (const e of res.body.errors) assert.equal(typeof e.message, 'string');
    });

    it('an inputSchema that is not valid JSON Schema is refused', async () => {
      const res = await publish(tool({ inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }), acme).expect(400);
      assert.ok(res.body.errors.some((e: { path: string }) => e.path.startsWith('inputSchema')));
    });

    it('a body that is not a JSON object is refused, malformed JSON is invalid_json', async () => {
      const res = await publish([tool()], acme).expect(400);
      assert.equal(res.body.code, 'invalid_listing');
      const bad = await request(h.app).post('/discovery/publish').set('Authorization', `Bearer ${acme}`).set('Content-Type', 'application/json').send('{"type":').expect(400);
      assert.equal(bad.body.code, 'invalid_json');
    });
  });

  describe('publish, republish, unpublish', () => {
    it('201 with the listing, then 200 on republish; searchable; DELETE takes it out of search', async () => {
      const created = await publish(tool({ payment: { ...PAYMENT, network: 'base-sepolia', pricing: { unit: 'request', pricePerUnit: '2500' } } }), acme).expect(201);
      const id = mcpListingId('mcp://tools.acme.test/geocode_address', 'geocode_address');
      assert.equal(created.body.id, id);
      assert.equal(created.headers.location, `/discovery/resources/${id}`);
      assert.equal(created.body.provenance.published.via, 'manual', 'published by hand (no seller SDK header)');
      assert.deepEqual(
        { ...created.body, signals: undefined, provenance: undefined },
        {
          id,
          type: 'mcp',
          resource: 'mcp://tools.acme.test/geocode_address',
          name: 'geocode_address',
          description: tool().description,
          inputSchema: tool().inputSchema,
          outputSchema: tool().outputSchema,
          tags: ['geo', 'maps'],
          payment: { ...PAYMENT, network: 'eip155:84532', pricing: { unit: 'request', pricePerUnit: '2500' } },
          signals: undefined,
          provenance: undefined,
        },
      );
      assert.deepEqual(created.body.signals, { settleCount7d: 0, rejectionRate7d: 0 });
      assert.equal(JSON.stringify(created.body).includes('owner'), false);

      await waitFor(async () => (await searchIds('geocode address coordinates')).includes(id), 5000);

      const replaced = await publish(tool({ description: 'Geocodes a postal address (v2) to coordinates.' }), acme).expect(200);
      assert.equal(replaced.body.id, id);
      await waitFor(async () => {
        const res = await request(h.app).get('/mcp/tools').query({ q: 'geocodes postal' }).expect(200);
        return res.body.results.find((r: { id: string; description: string }) => r.id === id && r.description.includes('(v2)'));
      }, 5000);

      await request(h.app).delete(`/discovery/publish/${id}`).set('Authorization', `Bearer ${other}`).expect(403);
      await request(h.app).delete(`/discovery/publish/${id}`).expect(401);
      await request(h.app).delete(`/discovery/publish/${id}`).set('Authorization', `Bearer ${acme}`).expect(204);
      await waitFor(async () => !(await searchIds('geocode address coordinates')).includes(id), 10_000);
      const again = await request(h.app).delete(`/discovery/publish/${id}`).set('Authorization', `Bearer ${acme}`).expect(404);
      assert.equal(again.body.code, 'not_found');

      const stored = await h.container.catalog.reader.get(id);
      assert.equal(stored?.owner, acmeId);
    });

    it('DELETE of an unknown id: 404; of a listing published by another token: 403', async () => {
      await request(h.app).delete(`/discovery/publish/lst_${'0'.repeat(24)}`).set('Authorization', `Bearer ${acme}`).expect(404);
      await request(h.app).delete('/discovery/publish/whatever').set('Authorization', `Bearer ${acme}`).expect(404);
      const { secret } = await h.container.publishing.tokens.issue(['other.test'], 'other-2');
      const mine = await publish(tool({ resource: 'mcp://other.test/quote', name: 'quote' }), secret).expect(201);
      const res = await request(h.app).delete(`/discovery/publish/${mine.body.id}`).set('Authorization', `Bearer ${acme}`).expect(403);
      assert.equal(res.body.code, 'forbidden_resource');
    });
  });

  describe('rate limit per token', () => {
    let limited: Harness;
    before(async () => {
      limited = await startHarness({ RATE_LIMIT_PUBLISH_TOKEN: '2/1m', RATE_LIMIT_PUBLISH: 'off' });
    });
    after(() => limited.close());

    it('a token over its budget gets 429 rate_limited with Retry-After; another token is not affected', async () => {
      const first = (await limited.container.publishing.tokens.issue(['tools.acme.test'])).secret;
      const second = (await limited.container.publishing.tokens.issue(['tools.acme.test'])).secret;
      const send = (token: string) =>
        request(limited.app).post('/discovery/publish').set('Authorization', `Bearer ${token}`).send(tool());
      await send(first).expect(201);
      await send(first).expect(200);
      const res = await send(first).expect(429);
      assert.equal(res.body.code, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) >= 1);
      await send(second).expect(200);
    });
  });

  describe('operator command (npm run tokens)', () => {
    const tokens = (...args: string[]) => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/tokens.ts', ...args], {
        env: { ...process.env, REDIS_PREFIX: h.config.redisPrefix, REDIS_URL: h.config.redisUrl },
        encoding: 'utf8',
        timeout: 20_000,
      });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    };

    it('issue prints the token once; it publishes; list never shows it; revoke stops it', async () => {
      const issued = tokens('issue', '--host', 'cli.acme.test', '--label', 'cli');
      assert.equal(issued.status, 0, issued.stderr);
      const secret = issued.stdout.trim();
      assert.match(secret, /^pdsk_[A-Za-z0-9_-]{43}$/);
      const id = /issued (tok_[0-9a-f]+)/.exec(issued.stderr)?.[1];
      assert.ok(id);
      await publish(tool({ resource: 'mcp://cli.acme.test/geocode_address' }), secret).expect(201);

      const listed = tokens('list', '--json');
      assert.equal(listed.status, 0);
      assert.ok(!listed.stdout.includes(secret), 'list never prints a token');
      const entry = (JSON.parse(listed.stdout) as Array<{ id: string; label?: string; hosts: string[] }>).find((t) => t.id === id);
      assert.deepEqual({ label: entry?.label, hosts: entry?.hosts }, { label: 'cli', hosts: ['cli.acme.test'] });

      assert.equal(tokens('revoke', id!).status, 0);
      await publish(tool({ resource: 'mcp://cli.acme.test/geocode_address' }), secret).expect(401);
      assert.equal(tokens('revoke', 'tok_unknown').status, 1);
      const bad = tokens('issue', '--host', 'not a host');
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /not a host name/);
    });
  });
});
