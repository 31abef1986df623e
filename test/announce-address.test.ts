import assert from 'node:assert/strict';
import { unmapIPv4 } from '../src/core/ipAddress.js';
import { isPublicAddress, ProbeAllowList } from '../src/probe/addressPolicy.js';
import { parseChallenge, requirementsDifference } from '../src/probe/challenge.js';
import { templateMatchesPath } from '../src/x402/routeTemplate.js';

describe('announce: address policy, challenge reading, route templates', () => {
  it('refuses every non-public range, v4 and v6, including v4-mapped forms', () => {
    const refused = [
      '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254',
      '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1',
      '::', '::1', '::7f00:1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:192.168.1.1',
      'not-an-ip',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
    assert.equal(unmapIPv4('::ffff:7f00:1'), '127.0.0.1');
  });

  it('allow-list: CIDRs allow any port, host:port exactly one', () => {
    const allow = ProbeAllowList.parse('10.1.0.0/16, 127.0.0.1:4021, [::1]:8080, seller.internal:9000');
    assert.equal(allow.allows('10.1.2.3', 1, 'x'), true);
    assert.equal(allow.allows('10.2.0.1', 1, 'x'), false);
    assert.equal(allow.allows('127.0.0.1', 4021, '127.0.0.1'), true);
    assert.equal(allow.allows('127.0.0.1', 4022, '127.0.0.1'), false);
    assert.equal(allow.allows('::ffff:127.0.0.1', 4021, 'localhost'), true);
    assert.equal(allow.allows('::1', 8080, '::1'), true);
    assert.equal(allow.allows('192.168.9.9', 9000, 'seller.internal'), true);
    assert.throws(() => ProbeAllowList.parse('10.0.0.0/33'), /not a valid CIDR/);
    assert.throws(() => ProbeAllowList.parse('http://x'), /neither a CIDR/);
  });

  it('reads v1 names as CAIP-2 and compares requirement sets regardless of case and order', () => {
    const v1 = parseChallenge({
      x402Version: 1,
      accepts: [
        { scheme: 'exact', network: 'base', maxAmountRequired: '5', asset: '0xAA', payTo: '0xBB' },
        { scheme: 'upto', network: 'base-sepolia', maxAmountRequired: '9', asset: '0xCC', payTo: '0xDD' },
        { scheme: 'deferred', network: 'base', maxAmountRequired: '1', asset: '0xEE', payTo: '0xFF' },
      ],
    });
    assert.deepEqual(v1.accepts.map((a) => a.network), ['eip155:8453', 'eip155:84532']);
    const v2 = parseChallenge({
      x402Version: 2,
      accepts: [
        { scheme: 'upto', network: 'eip155:84532', amount: '9', asset: '0xcc', payTo: '0xdd' },
        { scheme: 'exact', network: 'eip155:8453', amount: '5', asset: '0xaa', payTo: '0xbb' },
      ],
    });
    assert.equal(requirementsDifference(v1.accepts, v2.accepts), undefined);
    assert.match(requirementsDifference(v1.accepts, v2.accepts.slice(0, 1))!, /announced but not served: exact\|eip155:8453/);
  });

  it('route templates: the probed path must be an instance of the template', () => {
    assert.equal(templateMatchesPath('/users/:id', '/users/42'), true);
    assert.equal(templateMatchesPath('/weather/{lat}/{lng}', '/weather/1.5/2'), true);
    assert.equal(templateMatchesPath('/users/:id', '/users'), false);
    assert.equal(templateMatchesPath('/users/:id', '/admins/42'), false);
    assert.equal(templateMatchesPath('/users/:id', '/users/42/extra'), false);
  });
});
