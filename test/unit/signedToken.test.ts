import assert from 'node:assert/strict';
import { SignedTokenCodec } from '../../src/core/signedToken.js';

const secret = async () => Buffer.alloc(32, 7);

describe('unit: signed tokens', () => {
  it('opens what it sealed, and nothing sealed under another label or altered', async () => {
    const cursors = new SignedTokenCodec(secret, { maxBodyChars: 64 });
    const changes = new SignedTokenCodec(secret, { maxBodyChars: 64, label: 'discovery-changes-v1' });
    const token = await cursors.seal({ v: 1, p: 'x' });
    assert.deepEqual(await cursors.open(token), { ok: true, payload: { v: 1, p: 'x' } });
    assert.deepEqual(await changes.open(token), { ok: false, problem: 'altered' });
    const [body, tag] = token.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ v: 1, p: 'y' })).toString('base64url')}.${tag}`;
    assert.deepEqual(await cursors.open(forged), { ok: false, problem: 'altered' });
    assert.deepEqual(await cursors.open(`${body}`), { ok: false, problem: 'malformed' });
    assert.deepEqual(await cursors.open(`${'a'.repeat(65)}.${tag}`), { ok: false, problem: 'malformed' });
  });
});
