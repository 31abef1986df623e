import assert from 'node:assert/strict';
import { Forbidden, InvalidInput, NotFound, RateLimited, Unauthorized, Unavailable } from '../../src/core/errors.js';
import { PROBLEM_STATUS, ProblemError, problemOf, problems } from '../../src/problems/problem.js';
import { readFileSync } from 'node:fs';

describe('unit: problem+json answers', () => {
  it('an invalid input keeps its code and lists every field to fix', () => {
    const problem = problemOf(new InvalidInput('invalid_filter_value', 'bad limit', [{ path: 'limit', message: 'must be 1-100' }]))!;
    assert.equal(problem.status, 400);
    assert.deepEqual(problem.toBody('/discovery/search'), {
      type: '/problems/invalid_filter_value', title: 'Bad Request', status: 400, detail: 'bad limit', code: 'invalid_filter_value', instance: '/discovery/search',
      errors: [{ path: 'limit', message: 'must be 1-100' }],
    });
    assert.equal('errors' in problemOf(new InvalidInput('missing_query', 'no q'))!.toBody(), false, 'no empty errors list');
  });

  it('each domain error has its status', () => {
    assert.equal(problemOf(new NotFound('gone'))?.status, 404);
    assert.equal(problemOf(new Forbidden('not yours'))?.code, 'forbidden_resource');
    assert.equal(problemOf(new Error('plain')), undefined, 'anything else is the caller\'s to log as a 500');
    assert.equal(problemOf('string'), undefined);
  });

  it('unauthorized carries a bearer challenge that says why the token failed', () => {
    assert.deepEqual(problemOf(new Unauthorized('no token'))?.extras.headers, { 'WWW-Authenticate': 'Bearer realm="discovery"' });
    assert.match(problemOf(new Unauthorized('revoked', 'revoked'))!.extras.headers!['WWW-Authenticate']!, /error="invalid_token", error_description="token revoked"/);
  });

  it('unavailable: one code per backend, with Retry-After; headers never leak into the body', () => {
    const codes = (['search', 'store', 'announce', 'facilitator'] as const).map((what) => problemOf(new Unavailable(what, 'down', 7))!);
    assert.deepEqual(codes.map((p) => p.code), ['search_unavailable', 'service_unavailable', 'announce_unavailable', 'facilitator_unavailable']);
    assert.ok(codes.every((p) => p.status === 503 && p.extras.headers?.['Retry-After'] === '7'));
    assert.equal('headers' in codes[0]!.toBody(), false);
  });

  it('rate limited: 429 with the budget in the body and Retry-After', () => {
    const problem = problemOf(new RateLimited('slow down', 12, 60, 60))!;
    assert.equal(problem.status, 429);
    assert.equal(problem.extras.headers?.['Retry-After'], '12');
    assert.deepEqual([problem.toBody().limit, problem.toBody().windowSeconds], [60, 60]);
  });

  it('the body helpers name the limit and the parse error', () => {
    assert.match(problems.payloadTooLarge(65536).detail, /65536 bytes/);
    assert.equal(problems.invalidJson('Unexpected token').code, 'invalid_json');
    assert.equal(problems.internal().status, 500);
    assert.equal(new ProblemError('not_ready', 'x').toBody().title, 'Service Unavailable');
  });

  it('every problem code is documented in the README for clients', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const missing = Object.keys(PROBLEM_STATUS).filter((code) => !readme.includes(`\`${code}\``));
    assert.deepEqual(missing, []);
  });
});
