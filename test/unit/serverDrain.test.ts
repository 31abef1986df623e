import assert from 'node:assert/strict';
import { stopBudget } from '../../src/http/serverDrain.js';

describe('stopBudget', () => {
  it('fits the whole stop in the grace period, keeping what the workers need after the HTTP drain', () => {
    assert.deepEqual(stopBudget(10_000, 4000), { httpCutAfterMs: 6000, deadlineMs: 10_000 });
  });

  it('gives the workers at most half when the grace period is short', () => {
    assert.deepEqual(stopBudget(2000, 4000), { httpCutAfterMs: 1000, deadlineMs: 2000 });
    assert.deepEqual(stopBudget(0, 4000), { httpCutAfterMs: 0, deadlineMs: 0 });
  });
});
