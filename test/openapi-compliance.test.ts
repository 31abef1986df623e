/**
 * The OpenAPI document (GET /openapi.json) against the running service: the document is valid
 * OpenAPI 3.1, it describes exactly the routes Express serves, and every request example it
 * documents (`x-examples`) gets, from the real service with the demo catalog, an answer whose
 * status, media type and body match the document (validated with ajv against the document's own
 * schemas, `code` of every problem included).
 */
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import type { RequestExample } from '../src/openapi/builders.js';
import { EXAMPLE_TOOL_HOST } from '../src/openapi/paths/sellers.js';
import { startHarness, type Harness } from './support/harness.js';
import { seedDemoCatalog } from './support/demoCatalog.js';
import { expressRoutes } from './support/expressRoutes.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; 'x-examples'?: RequestExample[] }>> };

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

describe('OpenAPI document', function () {
  this.timeout(60_000);
  let h: Harness;
  let doc: Doc;
  let ajv: Ajv2020;
  let sellerToken: string;

  before(async () => {
    h = await startHarness();
    await seedDemoCatalog(h);
    sellerToken = (await h.container.publishing.tokens.issue([EXAMPLE_TOOL_HOST], 'openapi examples')).secret;
    const res = await request(h.app).get('/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    doc = res.body;
    // The document itself is the schema store: response schemas are compiled by JSON pointer into it.
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema(doc as object, 'openapi');
  });
  after(() => h?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal((doc as unknown as { openapi: string }).openapi, '3.1.0');
  });

  it('describes every route Express serves, and nothing else', () => {
    const served = expressRoutes(h.app);
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) if (item[method]) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const undocumented = [...served].filter((r) => !documented.has(r)).sort();
    const unserved = [...documented].filter((r) => !served.has(r)).sort();
    assert.deepEqual(
      { undocumented, unserved },
      { undocumented: [], unserved: [] },
      [
        undocumented.length ? `Served by Express but not in the OpenAPI document (describe them in src/openapi/paths/): ${undocumented.join(', ')}.` : '',
        unserved.length ? `In the OpenAPI document but not served by Express: ${unserved.join(', ')}.` : '',
      ].join(' '),
    );
  });

  it('every operation documents at least one request example', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) if (item[method] && !(item[method]!['x-examples'] ?? []).length) missing.push(`${method.toUpperCase()} ${path}`);
    }
    assert.deepEqual(missing, [], `operations without x-examples: ${missing.join(', ')}`);
  });

  it('every documented example gets the documented answer from the real service', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        for (const example of operation?.['x-examples'] ?? []) {
          const label = `${method.toUpperCase()} ${path} "${example.summary}"`;
          const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(example.params?.[name] ?? `{${name}}`));
          let req = request(h.app)[method](url).query(example.query ?? {});
          for (const [name, value] of Object.entries(example.headers ?? {})) req = req.set(name, value.replace('{sellerToken}', sellerToken));
          const res = await (example.body === undefined ? req : req.send(example.body as object));
          sent += 1;
          if (res.status !== example.status) {
            failures.push(`${label}: status ${res.status}, documented ${example.status}: ${res.text.slice(0, 300)}`);
            continue;
          }
          if (!res.headers['x-api-version']) failures.push(`${label}: no X-API-Version header`);
          const response = operation!.responses[String(res.status)];
          if (!response) {
            failures.push(`${label}: status ${res.status} is not documented`);
            continue;
          }
          const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
          if (!response.content) {
            if (res.text) failures.push(`${label}: documented without a body, got ${mediaType}`);
            continue;
          }
          if (!response.content[mediaType]) {
            failures.push(`${label}: answered ${mediaType}, documented ${Object.keys(response.content).join(', ')}`);
            continue;
          }
          if (!mediaType.endsWith('json')) continue;
          const validate = ajv.getSchema(`openapi#/${pointer('paths', path, method, 'responses', String(res.status), 'content', mediaType, 'schema')}`);
          if (!validate) throw new Error(`no schema for ${label}`);
          if (!validate(JSON.parse(res.text))) failures.push(`${label}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
        }
      }
    }
    assert.ok(sent >= 40, `only ${sent} examples were sent`);
    assert.deepEqual(failures, []);
  });

  it('the validation used above refuses an answer that breaks the document', () => {
    const page = ajv.getSchema(`openapi#/${pointer('paths', '/discovery/search', 'get', 'responses', '200', 'content', 'application/json', 'schema')}`)!;
    const problem = ajv.getSchema(`openapi#/${pointer('paths', '/discovery/search', 'get', 'responses', '400', 'content', 'application/problem+json', 'schema')}`)!;
    assert.equal(page({ results: [{ id: 'lst_85340d09b17cee659a62915f', type: 'http', resource: 'https://x.example/a' }] }), false);
    assert.equal(page({ results: [], cursor: 'x' }), false);
    const body = { type: '/problems/x', title: 'Bad Request', status: 400, detail: 'd' };
    assert.equal(problem({ ...body, code: 'missing_query' }), true);
    assert.equal(problem({ ...body, code: 'invalid_listing' }), false, 'a code the route does not document');
  });
});
