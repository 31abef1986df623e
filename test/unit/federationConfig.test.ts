import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';

describe('unit: reach configuration (REACH_UPSTREAMS, REACH_CONFIG)', () => {
  it('name=url entries and bare URLs (named after their host), with the shared defaults', () => {
    const { federation } = loadConfig({ REACH_UPSTREAMS: 'cdp=https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources, https://x402.org/facilitator/discovery/resources', REACH_PAGE_SIZE: '50' });
    assert.deepEqual(
      federation.upstreams.map((u) => [u.name, u.url, u.pageSize, u.intervalMs]),
      [
        ['cdp', 'https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources', 50, 3_600_000],
        ['x402-org', 'https://x402.org/facilitator/discovery/resources', 50, 3_600_000],
      ],
    );
    assert.deepEqual(loadConfig({}).federation.upstreams, []);
  });

  it('a JSON file adds upstreams with their own interval and page size', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'reach-config-')), 'reach.json');
    writeFileSync(file, JSON.stringify({ upstreams: [{ name: 'circle', url: 'https://circle.example/v2/x402/discovery/resources', intervalMs: 600_000, pageSize: 200 }] }));
    const { federation } = loadConfig({ REACH_CONFIG: file, REACH_UPSTREAMS: 'cdp=https://cdp.example/list' });
    assert.deepEqual(federation.upstreams.map((u) => [u.name, u.intervalMs, u.pageSize]), [['cdp', 3_600_000, 100], ['circle', 600_000, 200]]);
  });

  it('every bad entry is reported: not a URL, a duplicate name, an unreadable or malformed file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reach-config-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ upstreams: [{ name: 'x' }, { url: 'https://a.example/l', pageSize: 0 }] }));
    for (const [env, problem] of [
      [{ REACH_UPSTREAMS: 'cdp=ftp://x' }, /REACH_UPSTREAMS: cdp=ftp:\/\/x: must be a http: or https: URL/],
      [{ REACH_UPSTREAMS: 'a=https://a.example/l,a=https://b.example/l' }, /upstream names must be unique; a given twice/],
      [{ REACH_CONFIG: join(dir, 'missing.json') }, /REACH_CONFIG=.*cannot read it as JSON/],
      [{ REACH_CONFIG: join(dir, 'bad.json') }, /upstreams\[0\]: needs a "url"[\s\S]*upstreams\[1\]: pageSize must be an integer from 1 to 1000/],
    ] as const) {
      assert.throws(() => loadConfig(env), problem);
    }
  });
});
