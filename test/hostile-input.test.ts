/**
 * Client input that used to reach a 500 (issue 9, defect 6) or hold a connection (defect 8): every
 * one of these is a 4xx problem now, and an oversized body is refused without being read.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'valueOf', 'hasOwnProperty', 'toString'];
const POST_ROUTES = ['/discovery/announce', '/discovery/publish', '/verify', '/settle'];

/** Sends raw bytes and resolves with everything the server answered once it closes the connection. */
function rawExchange(port: number, head: string, body: (socket: ReturnType<typeof connect>) => void = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => {
      socket.write(head);
      body(socket);
    });
  });
}

describe('hostile client input: 4xx problems, never a 500', function () {
  this.timeout(20_000);
  let h: Harness;
  let server: Server;
  let port: number;

  before(async () => {
    h = await startHarness({ RATE_LIMIT_ANNOUNCE: 'off' });
    server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  describe('prototype member names as input', () => {
    for (const name of PROTOTYPE_NAMES) {
      it(`network=${name} on every catalog read: 400 invalid_filter_value`, async () => {
        for (const path of ['/discovery/resources', '/discovery/search?q=weather', '/mcp/tools?q=weather']) {
          const res = await request(h.app).get(path).query({ network: name });
          assert.equal(res.status, 400, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'invalid_filter_value');
          assert.equal(res.body.errors[0].path, 'network');
        }
      });
    }

    it('an announced challenge whose only network is "constructor" is refused', async () => {
      const res = await request(h.app)
        .post('/discovery/announce')
        .send({
          resource: 'https://seller.example.com/proto',
          challenge: { x402Version: 1, accepts: [{ scheme: 'exact', network: 'constructor', maxAmountRequired: '10', asset: '0xabc', payTo: '0xdef' }] },
        });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'invalid_announce');
    });
  });

  describe('bad percent-encoding in a path', () => {
    for (const [method, path] of [
      ['get', '/discovery/resources/%ZZ'],
      ['get', '/discovery/resources/%ED%A0%80'],
      ['delete', '/discovery/publish/%ZZ'],
    ] as const) {
      it(`${method.toUpperCase()} ${path}: 400 invalid_path`, async () => {
        const res = await request(h.app)[method](path);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.body.code, 'invalid_path');
      });
    }
  });

  describe('bodies that do not decode', () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`garbage declared as Content-Encoding: ${encoding} on every POST: 400 invalid_encoding`, async () => {
        for (const path of POST_ROUTES) {
          const res = await fetch(`http://127.0.0.1:${port}${path}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
            body: 'this is not compressed at all, just some bytes {"a":1}',
          });
          const body = (await res.json()) as { code: string };
          assert.equal(res.status, 400, `${path}: ${res.status} ${JSON.stringify(body)}`);
          assert.equal(body.code, 'invalid_encoding');
        }
      });
    }

    it('a /settle paymentPayload of 30,000 nested arrays: 400 nesting_too_deep naming the member', async () => {
      const body = `{"x402Version":1,"paymentPayload":${'['.repeat(30_000)}${']'.repeat(30_000)},"paymentRequirements":{}}`;
      const res = await request(h.app).post('/settle').set('Content-Type', 'application/json').send(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'nesting_too_deep');
      assert.match(res.body.errors[0].path, /^paymentPayload\.0\.0/);
    });

    it('/settle with a network object carrying its own toString (found by npm run bench -- fuzz): an answer, not a 500', async () => {
      const res = await request(h.app)
        .post('/settle')
        .send({ x402Version: 1, paymentPayload: { x402Version: 1 }, paymentRequirements: { network: { toString: 1941415681 } } });
      assert.ok(res.status < 500, `${res.status} ${JSON.stringify(res.body)}`);
    });

    it('a body nested 64 levels deep is still read', async () => {
      let value: unknown = 1;
      for (let i = 0; i < 63; i++) value = [value];
      const res = await request(h.app).post('/verify').send({ paymentPayload: value });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'invalid_request');
    });
  });

  describe('oversized bodies are refused before they are read', () => {
    it('a declared 10 MB body: 413 while nothing of the body was sent, then the connection closes', async () => {
      const answer = await rawExchange(
        port,
        'POST /discovery/announce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n',
      );
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /\r\nconnection: close\r\n/i);
      assert.match(answer, /"code":"payload_too_large"/);
    });

    it('a declared Content-Length of 99,999,999,999,999: 413 at once', async () => {
      const answer = await rawExchange(
        port,
        'POST /settle HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999999\r\n\r\n{"a":',
      );
      assert.match(answer, /^HTTP\/1\.1 413 /);
    });

    it('a chunked body that passes the limit: 413 once the limit is passed, the rest is never awaited', async () => {
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const answer = await rawExchange(
        port,
        'POST /discovery/publish HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        (socket) => {
          socket.write('1\r\n[\r\n');
          // 80 KiB of a string that never ends, and no terminating chunk: the server must not wait for one.
          for (let i = 0; i < 5; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`);
        },
      );
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /"code":"payload_too_large"/);
    });

    // fetch, not supertest: superagent turns a Buffer body with a JSON type into JSON.
    const postGzip = (path: string, json: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: new Uint8Array(gzipSync(Buffer.from(json))),
      });

    it('a gzip body that inflates past the limit: 413', async () => {
      const res = await postGzip('/discovery/announce', `{"pad":"${'a'.repeat(2 * 1024 * 1024)}"}`);
      assert.equal(res.status, 413);
      assert.equal(((await res.json()) as { code: string }).code, 'payload_too_large');
    });

    it('a valid gzip body is read', async () => {
      const res = await postGzip('/discovery/announce', JSON.stringify({ resource: 'https://seller.example.com/gzipped' }));
      assert.equal(res.status, 202, await res.text());
    });
  });

  describe('URIs with userinfo are refused', () => {
    let token: string;
    before(async () => {
      token = (await h.container.publishing.tokens.issue(['tools.example'], 'hostile')).secret;
    });

    it('publish mcp://victim.example@tools.example/tool: 400 invalid_listing on resource', async () => {
      const res = await request(h.app)
        .post('/discovery/publish')
        .set('Authorization', `Bearer ${token}`)
        .send({
          type: 'mcp',
          resource: 'mcp://victim.example@tools.example/tool',
          name: 'tool',
          description: 'A tool',
          inputSchema: { type: 'object', properties: {} },
          payment: { scheme: 'exact', network: 'eip155:84532', asset: '0xabc', amount: '10' },
        });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'invalid_listing');
      assert.equal(res.body.errors[0].path, 'resource');
    });

    for (const resource of ['https://victim.example@seller.example.com/x', 'https://@seller.example.com/x', 'http://:@seller.example.com/x']) {
      it(`announce ${resource}: 400 invalid_announce`, async () => {
        const res = await request(h.app).post('/discovery/announce').send({ resource });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.code, 'invalid_announce');
      });
    }
  });
});
