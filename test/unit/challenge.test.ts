import assert from 'node:assert/strict';
import {
  ChallengeError, parseAnnouncedChallenge, parseChallenge, paymentOf, requirementKey, requirementsDifference,
} from '../../src/probe/challenge.js';
import { encodeBase64Json } from '../../src/x402/wire.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const v2Accept = { scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };
const v2 = (extra: Record<string, unknown> = {}) => ({ x402Version: 2, resource: { url: 'https://a.example/x', description: 'Weather now' }, accepts: [v2Accept], ...extra });
const v1 = (accept: Record<string, unknown> = {}) => ({
  x402Version: 1,
  error: 'payment required',
  accepts: [{ scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '2500', asset: USDC, payTo: PAY_TO, resource: 'https://a.example/x', description: 'Forecast', ...accept }],
});
const refusal = (raw: unknown) => {
  try {
    parseChallenge(raw);
  } catch (err) {
    if (err instanceof ChallengeError) return err.message;
    throw err;
  }
  return assert.fail('expected a ChallengeError');
};

describe('unit: reading a 402 challenge', () => {
  it('v2: the options with CAIP-2 networks, the resource description as describe', () => {
    const parsed = parseChallenge(v2());
    assert.equal(parsed.version, 2);
    assert.deepEqual(parsed.accepts, [v2Accept]);
    assert.deepEqual(parsed.describe, { description: 'Weather now' });
  });

  it('v1: maxAmountRequired is the amount and the legacy network name is mapped', () => {
    const [accept] = parseChallenge(v1()).accepts;
    assert.equal(accept?.amount, '2500');
    assert.equal(accept?.network, 'eip155:84532');
  });

  it('the v2 header value (base64 JSON, either alphabet) reads like the object', () => {
    const header = encodeBase64Json(v2());
    assert.deepEqual(parseAnnouncedChallenge(header), parseChallenge(v2()));
    assert.deepEqual(parseAnnouncedChallenge(header.replace(/\+/g, '-').replace(/\//g, '_')), parseChallenge(v2()));
    assert.throws(() => parseAnnouncedChallenge('not base64!'), ChallengeError);
    assert.throws(() => parseAnnouncedChallenge(Buffer.from('[1,2]').toString('base64')), ChallengeError);
  });

  it('refuses what is not a challenge', () => {
    assert.match(refusal([]), /not a JSON object/);
    assert.match(refusal({ x402Version: 3, accepts: [v2Accept] }), /x402Version must be 1 or 2/);
    assert.match(refusal({ x402Version: 2, accepts: [] }), /non-empty array/);
    assert.match(refusal({ x402Version: 2, accepts: Array(33).fill(v2Accept) }), /more than 32/);
  });

  it('skips options it cannot list, keeps the others, and says why when none is left', () => {
    const mixed = v2({ accepts: [{ ...v2Accept, scheme: 'stream' }, { ...v2Accept, network: 'eip155:1' }] });
    assert.deepEqual(parseChallenge(mixed).accepts.map((a) => a.network), ['eip155:1']);
    const message = refusal(v2({ accepts: [{ ...v2Accept, scheme: 'stream' }, { ...v2Accept, network: 'moon' }, 'x', { ...v2Accept, amount: '1.5' }, { ...v2Accept, asset: '' }] }));
    assert.match(message, /accepts\[0\]: scheme "stream" is not exact or upto/);
    assert.match(message, /accepts\[1\]: network "moon" is unknown/);
    assert.match(message, /accepts\[2\]: not an object/);
    assert.match(message, /accepts\[3\]: amount "1.5"/);
    assert.match(message, /accepts\[4\]: asset is missing/);
  });

  it('amounts: integer strings (or safe integer numbers), never above a long\'s 19 digits', () => {
    assert.equal(parseChallenge(v2({ accepts: [{ ...v2Accept, amount: 1000 }] })).accepts[0]?.amount, '1000');
    for (const amount of ['-1', '01', '1e3', 2 ** 60, '12345678901234567890', 1.5]) {
      assert.throws(() => parseChallenge(v2({ accepts: [{ ...v2Accept, amount }] })), ChallengeError, String(amount));
    }
  });

  it('a routeTemplate must be a path template; the declared method is read from bazaar or v1 outputSchema', () => {
    assert.equal(parseChallenge(v2({ extensions: { bazaar: { routeTemplate: '/users/:id' } } })).routeTemplate, '/users/:id');
    assert.match(refusal(v2({ extensions: { bazaar: { routeTemplate: '/../admin' } } })), /not a path template/);
    assert.equal(parseChallenge(v2({ extensions: { bazaar: { info: { input: { method: 'post' } } } } })).method, 'POST');
    assert.equal(parseChallenge(v1({ outputSchema: { input: { method: 'delete' } } })).method, 'DELETE');
    assert.equal(parseChallenge(v1({ outputSchema: { input: { method: 'TRACE' } } })).method, undefined);
  });

  it('describe: explicit values win; inputs are derived from the bazaar schema or v1 outputSchema', () => {
    const bazaar = {
      info: { input: { queryParams: { city: 'Paris', days: 3 } } },
      schema: { properties: { input: { properties: { queryParams: { properties: { city: { type: 'string' } } } } } } },
    };
    assert.deepEqual(parseChallenge(v2({ extensions: { bazaar } })).describe?.inputs, { city: 'string', days: 'integer' });
    const explicit = v2({ describe: { title: ' Weather ', tags: ['wx', 'wx', ''], inputs: { city: 'string', bad: 5 } }, extensions: { bazaar } });
    assert.deepEqual(parseChallenge(explicit).describe, { title: 'Weather', description: 'Weather now', tags: ['wx'], inputs: { city: 'string' } });
    assert.deepEqual(parseChallenge(v1({ outputSchema: { input: { queryParams: { q: { type: 'string' } }, bodyFields: { n: 'number' } } } })).describe?.inputs, { q: 'string', n: 'number' });
  });

  it('announced and probed options agree as sets, case-insensitive in addresses; the difference says what', () => {
    const announced = parseChallenge(v2()).accepts.map(paymentOf);
    assert.equal('extra' in announced[0]!, false, 'scheme parameters are not part of the listing payment');
    const probed = [{ ...announced[0]!, asset: USDC.toLowerCase(), payTo: PAY_TO.toUpperCase().replace('0X', '0x') }];
    assert.equal(requirementsDifference(announced, probed), undefined);
    const dearer = [{ ...announced[0]!, amount: '2000' }];
    const difference = requirementsDifference(announced, dearer)!;
    assert.match(difference, /announced but not served: exact\|eip155:84532\|.*\|1000\|/);
    assert.match(difference, /served but not announced: .*\|2000\|/);
    assert.notEqual(requirementKey(announced[0]!), requirementKey({ ...announced[0]!, scheme: 'upto' }));
  });
});
