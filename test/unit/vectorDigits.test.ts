import assert from 'node:assert/strict';
import { vectorDigits } from '../../src/core/vectorDigits.js';

describe('unit: vectors at nine significant digits', () => {
  it('every float32 comes back as itself (Elasticsearch indexes the same vector)', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const values = new Float32Array(50_000);
    for (let i = 0; i < values.length; i++) values[i] = (random() - 0.5) * 10 ** Math.floor(random() * 12 - 8);
    values.set([0, -0, 1, -1, 1.1754943508222875e-38, 3.4028234663852886e38, 1.401298464324817e-45, 0.1]);
    const written = vectorDigits(values);
    // -0 is written 0, which is the same for every similarity.
    for (let i = 0; i < values.length; i++) assert.ok(Math.fround(written[i]!) === values[i], `component ${i}: ${values[i]} written ${written[i]}`);
  });

  it("a vector at a model's scale is at least 30% shorter as JSON than its float32s widened to doubles", () => {
    const vector = new Float32Array(384).map((_, i) => Math.sin(i * 12.9898) * 0.1);
    const widened = JSON.stringify(Array.from(vector)).length;
    const written = JSON.stringify(vectorDigits(vector)).length;
    assert.ok(written < 0.7 * widened, `${written} vs ${widened} characters`);
    const significantDigits = (x: number) => String(x).replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length;
    assert.ok(vectorDigits(vector).every((x) => significantDigits(x) <= 9));
  });
});
