import assert from 'node:assert/strict';
import { AllowListError, isPublicAddress, mayConnect, ProbeAllowList } from '../../src/probe/addressPolicy.js';
import { unmapIPv4 } from '../../src/core/ipAddress.js';

describe('unit: SSRF address rules of the probe', () => {
  const none = new ProbeAllowList([]);

  it('public v4 and v6 addresses may be probed', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '[2a00:1450:4007:80e::200e]']) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  it('loopback, private, link-local (cloud metadata), CGNAT, multicast and reserved v4 ranges may not', () => {
    for (const address of ['127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.10']) {
      assert.equal(isPublicAddress(address), false, address);
    }
    assert.equal(isPublicAddress('172.32.0.1'), true, 'just outside 172.16/12');
    assert.equal(isPublicAddress('100.128.0.1'), true, 'just outside 100.64/10');
  });

  it('v6 loopback, unique-local, link-local, documentation and v4-embedding prefixes may not', () => {
    for (const address of ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '2001:db8::1', '64:ff9b::7f00:1', '2002:7f00:1::1', 'ff02::1', '::127.0.0.1', '[::1]']) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('v4-mapped v6 addresses are judged as the v4 address they carry', () => {
    assert.equal(unmapIPv4('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(unmapIPv4('::FFFF:7f00:1'), '127.0.0.1');
    assert.equal(unmapIPv4('0:0:0:0:0:ffff:a9fe:a9fe'), '169.254.169.254');
    assert.equal(isPublicAddress('::ffff:169.254.169.254'), false);
    assert.equal(isPublicAddress('::ffff:808:808'), true);
    assert.equal(unmapIPv4('2001:db8::1'), '2001:db8::1', 'other v6 addresses are left alone');
  });

  it('a host name or garbage is never an address that may be connected to', () => {
    for (const value of ['localhost', 'example.com', '', '999.1.1.1', '127.1']) assert.equal(isPublicAddress(value), false, value);
  });

  it('the operator allow-list: CIDRs allow every port, host:port one port, by address or URL host name', () => {
    const list = ProbeAllowList.parse(' 127.0.0.0/8 , [::1]:8080, seller.internal:4021,');
    assert.equal(list.isEmpty, false);
    assert.equal(mayConnect('127.0.0.2', 1234, 'x', list), true);
    assert.equal(mayConnect('::ffff:127.0.0.9', 80, 'x', list), true, 'a mapped address matches its v4 range');
    assert.equal(mayConnect('::1', 8080, 'x', list), true);
    assert.equal(mayConnect('::1', 8081, 'x', list), false);
    assert.equal(mayConnect('10.0.0.5', 4021, 'Seller.Internal', list), true);
    assert.equal(mayConnect('10.0.0.5', 4022, 'seller.internal', list), false);
    assert.equal(mayConnect('10.0.0.5', 4021, 'other.internal', list), false);
  });

  it('without an allow-list nothing private is reachable', () => {
    assert.equal(none.isEmpty, true);
    assert.equal(mayConnect('127.0.0.1', 8080, 'localhost', none), false);
    assert.equal(mayConnect('8.8.8.8', 443, 'dns.google', none), true);
  });

  it('refuses an allow-list entry that is neither a CIDR nor host:port, naming it', () => {
    for (const bad of ['10.0.0.0/33', '::/129', 'not-a-cidr/8', 'localhost', 'host:99999', 'http://a:80']) {
      assert.throws(() => ProbeAllowList.parse(bad), (err: unknown) => err instanceof AllowListError && err.message.includes(bad), bad);
    }
  });
});
