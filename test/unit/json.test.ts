import assert from 'node:assert/strict';
import { canonicalJson, isObject } from '../../src/core/json.js';
import { httpMethod } from '../../src/core/httpMethods.js';
import { isListingId } from '../../src/core/listingId.js';

describe('unit: ground-floor helpers', () => {
  it('canonical JSON sorts keys at every depth and drops undefined members', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined }], c: null } }), '{"a":{"c":null,"d":[2,{"z":1}]},"b":1}');
    assert.equal(canonicalJson({ x: 1, y: 2 }), canonicalJson({ y: 2, x: 1 }));
    assert.equal(canonicalJson(undefined), 'null');
  });

  it('isObject accepts plain objects only', () => {
    assert.equal(isObject({}), true);
    assert.equal(isObject([]), false);
    assert.equal(isObject(null), false);
    assert.equal(isObject('x'), false);
  });

  it('one HTTP method list, any case, without OPTIONS', () => {
    assert.equal(httpMethod('post'), 'POST');
    assert.equal(httpMethod('OPTIONS'), undefined);
    assert.equal(httpMethod('TRACE'), undefined);
    assert.equal(httpMethod(7), undefined);
  });

  it('listing ids are lst_ and 24 lower-case hex digits', () => {
    assert.equal(isListingId('lst_0123456789abcdef01234567'), true);
    assert.equal(isListingId('lst_0123456789ABCDEF01234567'), false);
    assert.equal(isListingId('lst_nothing'), false);
  });
});
