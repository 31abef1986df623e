import assert from 'node:assert/strict';
import { clusterSeeds, clusterUrl, parseClusterNodes, redisUrlProblem } from '../../src/core/redisTarget.js';
import { dottedPath, pathBeyondDepth } from '../../src/core/jsonDepth.js';
import { decodeBase64Json, encodeBase64Json } from '../../src/x402/wire.js';

/** `[[[...]]]` nested `depth` levels (the outer array is level 1). */
const arrays = (depth: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
};

describe('unit: JSON nesting depth', () => {
  it('counts the value itself as level 1; scalars have no depth', () => {
    assert.equal(pathBeyondDepth({ a: { b: 1 } }, 2), undefined);
    assert.deepEqual(pathBeyondDepth({ a: { b: {} } }, 2), ['a', 'b']);
    assert.equal(pathBeyondDepth('text', 0), undefined);
    assert.equal(pathBeyondDepth(null, 0), undefined);
  });

  it('names the path to the first container too deep, array indexes included', () => {
    assert.deepEqual(pathBeyondDepth({ ok: [1], deep: [{ x: [[]] }] }, 3), ['deep', '0', 'x']);
  });

  it('walks 100,000 levels without overflowing the stack (what a 200 KB body can hold)', () => {
    const path = pathBeyondDepth(arrays(100_000), 64);
    assert.equal(path?.length, 64);
    assert.equal(dottedPath(path!), `${Array(12).fill('0').join('.')}…`, 'the message is cut, not 64 segments long');
  });

  it('inherited keys are not walked (a polluted prototype cannot make a value deeper)', () => {
    const value = Object.create({ inherited: { a: { b: {} } } }) as Record<string, unknown>;
    value.own = 1;
    assert.equal(pathBeyondDepth(value, 1), undefined);
  });
});

describe('unit: Redis targets', () => {
  it('cluster seeds: host:port lists, IPv6 in brackets, 6379 by default', () => {
    assert.deepEqual(parseClusterNodes(' a:7000, [::1]:7001 ,b'), [{ host: 'a', port: 7000 }, { host: '::1', port: 7001 }, { host: 'b', port: 6379 }]);
    assert.deepEqual(clusterSeeds(clusterUrl('a:7000,b:7001')), [{ host: 'a', port: 7000 }, { host: 'b', port: 7001 }]);
    assert.equal(clusterSeeds('redis://127.0.0.1:6379'), undefined, 'a single server is not a cluster');
  });

  it('says what is wrong with a Redis URL instead of failing at the first command', () => {
    assert.equal(redisUrlProblem('redis://127.0.0.1:6379/0'), undefined);
    assert.equal(redisUrlProblem('rediss://cache.example:6380'), undefined);
    assert.match(redisUrlProblem('http://127.0.0.1:6379')!, /redis:, rediss: or redis\+cluster:/);
    assert.match(redisUrlProblem('not a url')!, /must be a URL/);
    assert.match(redisUrlProblem('redis+cluster:a:1')!, /redis\+cluster:\/\/host:port/);
    assert.match(redisUrlProblem('redis+cluster://a:99999')!, /"a:99999" is not host:port/);
    assert.match(redisUrlProblem('redis+cluster://')!, /at least one/);
  });
});

describe('unit: x402 header encoding', () => {
  it('round-trips UTF-8 JSON objects through base64', () => {
    const value = { x402Version: 2, resource: { description: 'Météo 🌦' } };
    assert.deepEqual(decodeBase64Json(encodeBase64Json(value)), value);
  });

  it('anything but base64 of a JSON object decodes to undefined, never throws', () => {
    for (const bad of ['', '***', encodeBase64Json([1]), encodeBase64Json('str'), encodeBase64Json(null), Buffer.from('{bad json').toString('base64')]) {
      assert.equal(decodeBase64Json(bad), undefined, bad);
    }
    assert.deepEqual(decodeBase64Json(' e30= '), {}, 'padding and surrounding blanks are fine');
  });
});
