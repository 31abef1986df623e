/**
 * Issue 43, item 6: a 500 tells the caller only its request id, and the log lines of that request
 * carry the error with its stack under the same id, so an operator finds the cause.
 */
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import winston from 'winston';
import Transport from 'winston-transport';
import { errorHandler, requestContext } from '../../src/http/middleware.js';

class Memory extends Transport {
  readonly lines: Array<Record<string, unknown>> = [];
  override log(info: Record<string, unknown>, done: () => void): void {
    this.lines.push(info);
    done();
  }
}

describe('unit: a 500 logs its error, stack and request id', () => {
  it('the error line has the stack and the request id; the request line names the cause; the body neither', async () => {
    const memory = new Memory();
    const logger = winston.createLogger({ level: 'http', transports: [memory] });
    const app = express();
    app.use(requestContext(logger));
    app.get('/boom', () => {
      (undefined as unknown as { call(): void }).call();
    });
    app.use(errorHandler());
    const res = await request(app).get('/boom').expect(500);
    const id = res.headers['x-request-id'];
    assert.equal(res.body.code, 'internal');
    assert.doesNotMatch(JSON.stringify(res.body), /TypeError|call|stack/);
    await new Promise((resolve) => setImmediate(resolve));
    const failure = memory.lines.find((line) => line.message === 'unhandled error')!;
    assert.equal(failure.requestId, id);
    const err = failure.err as { name: string; message: string; stack: string };
    assert.equal(err.name, 'TypeError');
    assert.match(err.stack, /errorLog\.test\.ts/);
    const line = memory.lines.find((l) => l.message === 'request')!;
    assert.equal(line.requestId, id);
    assert.equal(line.status, 500);
    assert.match(String(line.error), /^TypeError: /);
  });
});
