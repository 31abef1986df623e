import assert from 'node:assert/strict';
import { isValidRouteTemplate, templateMatchesPath } from '../../src/x402/routeTemplate.js';
import { parseStatusQuery } from '../../src/announce/statusQuery.js';
import { InvalidInput } from '../../src/core/errors.js';

describe('unit: route templates of announced 402s', () => {
  it('accepts Express and brace parameters and plain segments', () => {
    for (const template of ['/users/:userId', '/users/{userId}/orders', '/', '/v1/weather', '/a/b.json']) assert.equal(isValidRouteTemplate(template), true, template);
  });

  it('refuses relative, dot-segment, oversized and odd templates', () => {
    for (const template of ['users/:id', '/a/../admin', '/a/./b', '/{a b}', '/a?b=1', '/a#f', `/${'a'.repeat(512)}`, '/:1bad']) {
      assert.equal(isValidRouteTemplate(template), false, template);
    }
  });

  it('a template covers a path only when the path is one of its instances', () => {
    assert.equal(templateMatchesPath('/users/:id', '/users/42'), true);
    assert.equal(templateMatchesPath('/users/{id}/orders', '/users/42/orders'), true);
    assert.equal(templateMatchesPath('/users/:id', '/users/'), false, 'a parameter needs a value');
    assert.equal(templateMatchesPath('/users/:id', '/users/42/orders'), false, 'no extra segments');
    assert.equal(templateMatchesPath('/paid', '/anything'), false, 'an announcer cannot widen /paid to /anything');
    assert.equal(templateMatchesPath('/caf%C3%A9/:id', '/café/1'), true, 'segments compare decoded');
    assert.equal(templateMatchesPath('/a/%zz', '/a/%zz'), true, 'an undecodable segment compares as written');
  });
});

describe('unit: announce status query', () => {
  it('takes id, or resource and method, each once', () => {
    assert.deepEqual(parseStatusQuery({ id: 'lst_1' }), { id: 'lst_1' });
    assert.deepEqual(parseStatusQuery({ resource: 'https://a.example/x', method: 'POST' }), { resource: 'https://a.example/x', method: 'POST' });
  });

  it('refuses unknown parameters and repeated, empty or oversized values with problem codes', () => {
    const code = (query: Record<string, unknown>) => {
      try {
        parseStatusQuery(query);
      } catch (err) {
        if (err instanceof InvalidInput) return err.code;
      }
      return 'accepted';
    };
    assert.equal(code({ url: 'x' }), 'unknown_filter');
    assert.equal(code({ id: ['a', 'b'] }), 'invalid_filter_value');
    assert.equal(code({ id: '' }), 'invalid_filter_value');
    assert.equal(code({ resource: 'x'.repeat(2049) }), 'invalid_filter_value');
  });
});
