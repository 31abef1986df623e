/**
 * X-Forwarded-For counts only from the proxies TRUST_PROXY names (issue 9, defect 7): by default the
 * socket address is the client, so nobody picks their own rate-limit budget with a header.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { startHarness, type Harness } from './support/harness.js';

describe('TRUST_PROXY: whose X-Forwarded-For names the client', function () {
  this.timeout(20_000);
  const harnesses: Harness[] = [];
  after(async () => Promise.all(harnesses.map((h) => h.close())));

  async function announcesFromForgedClients(trustProxy: string | undefined): Promise<number[]> {
    const h = await startHarness({ RATE_LIMIT_ANNOUNCE: '2/1m', ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) });
    harnesses.push(h);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await request(h.app).post('/discovery/announce').set('X-Forwarded-For', `203.0.113.${i + 1}`).send({ resource: `https://seller.example.com/p${i}` });
      statuses.push(res.status);
    }
    return statuses;
  }

  it('default (off): X-Forwarded-For is ignored, every request from this socket address shares one budget', async () => {
    assert.deepEqual(await announcesFromForgedClients(undefined), [202, 202, 429, 429]);
  });

  it('a proxy that is not the peer does not count: TRUST_PROXY=10.0.0.0/8 from loopback', async () => {
    assert.deepEqual(await announcesFromForgedClients('10.0.0.0/8'), [202, 202, 429, 429]);
  });

  it('TRUST_PROXY=loopback: the forwarded address is the client', async () => {
    assert.deepEqual(await announcesFromForgedClients('loopback'), [202, 202, 202, 202]);
  });

  it('configuration: addresses, CIDRs and presets are accepted, anything else is reported by name', () => {
    assert.deepEqual(loadConfig({}).trustProxy, []);
    assert.deepEqual(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, []);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8,uniquelocal' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'uniquelocal']);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'true,10.0.0.0/33,proxy.example' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /TRUST_PROXY="true,10.0.0.0\/33,proxy.example": must be "off" or a comma-separated list .*; not true, 10.0.0.0\/33, proxy.example/);
      return true;
    });
  });
});
