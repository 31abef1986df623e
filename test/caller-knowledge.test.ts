/**
 * Issue 43, item 6: errors tell a caller what it may know. A blocked address is "a private
 * address", never what the name resolved to; a refused port and a silent one are the same
 * `unreachable` with the same detail, so the probe cannot port-scan a host for anyone.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import request from 'supertest';
import { announce, settled } from './support/announcing.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';

/** An IPv4 or IPv6 address anywhere in a text (what the old messages carried). */
const ADDRESS = /\b\d{1,3}(\.\d{1,3}){3}\b|::1|::ffff|fd00:|ECONNREFUSED|EHOSTUNREACH|ETIMEDOUT/;

describe('errors tell a caller what it may know (issue 43, item 6)', function () {
  this.timeout(30_000);
  let h: Harness;
  let silent: Server;
  const sockets = new Set<Socket>();
  let silentPort = 0;
  let closedPort = 0;

  before(async () => {
    // Accepts connections and never answers: a filtered port, as a timeout sees it.
    silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${silentPort},127.0.0.1:${closedPort}`, PROBE_TIMEOUT_MS: '400', RATE_LIMIT_ANNOUNCE: 'off' });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await h?.close();
  });

  it('an origin whose name resolves inward: "a private address", no resolution, in the answer and the stored report', async () => {
    for (const origin of ['http://localhost', 'http://localhost:6379', 'http://127.0.0.1:9200']) {
      const res = await request(h.app).post('/discovery/announce').send({ origin });
      // What the caller sent may come back; nothing else may name an address.
      const text = JSON.stringify(res.body).split(origin).join('').split(encodeURIComponent(origin)).join('');
      assert.match(text, /private address/, `${origin}: ${text}`);
      assert.doesNotMatch(text, ADDRESS, `${origin}: ${text}`);
      const status = await request(h.app).get('/discovery/announce/status').query({ origin }).expect(200);
      assert.doesNotMatch(JSON.stringify(status.body).split(origin).join(''), ADDRESS);
    }
  });

  it('a resource on a blocked address: blocked_address with a detail that names no address', async () => {
    for (const resource of ['http://localhost/admin', 'http://[::1]/x', 'http://10.0.0.7/x', 'http://169.254.169.254/latest/meta-data']) {
      const { id } = await announce(h.app, { resource });
      const state = await settled(h.app, id);
      assert.equal(state.reason, 'blocked_address');
      assert.doesNotMatch(JSON.stringify({ ...state, resource: undefined }), ADDRESS, resource);
    }
  });

  it('a refused port and a silent one answer the same reason and the same detail', async () => {
    const refused = await settled(h.app, (await announce(h.app, { resource: `http://127.0.0.1:${closedPort}/x` })).id);
    const timedOut = await settled(h.app, (await announce(h.app, { resource: `http://127.0.0.1:${silentPort}/x` })).id);
    assert.equal(refused.reason, 'unreachable');
    assert.equal(timedOut.reason, 'unreachable');
    assert.equal(refused.detail, timedOut.detail);
    assert.doesNotMatch(refused.detail!, ADDRESS);
    await waitFor(async () => sockets.size > 0);
  });
});
