/**
 * Used nonces are kept until their authorization can no longer be settled (validBefore / deadline
 * plus a margin), not forever: and yet no replay gets through, before that time, after it, or for
 * nonces recorded in the old form (a set per nonce space, kept forever).
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';
import { Ledger, USED_NONCE_MARGIN_MS, type Transfer } from '../src/store/redis/ledger.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ledger: used nonces expire with their authorization, replays never pass', () => {
  let h: Harness;
  let keys: ReturnType<typeof redisKeys>;
  before(async () => {
    h = await startHarness({}, { workers: false });
    keys = redisKeys(h.config.redisPrefix);
  });
  after(async () => h.close());

  const exactSpace = (payer: string) => `eip3009:${USDC.toLowerCase()}:${payer.toLowerCase()}`;
  const fund = (address: string, amount = 100_000n) => h.container.facilitator.ledger.fund(NETWORK, USDC, address, amount);
  const balance = (address: string) => h.container.facilitator.ledger.balance(NETWORK, USDC, address);

  it('refuses a replayed nonce before validBefore, and keeps it until validBefore plus the margin', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fund(payer.address);
    const validBefore = nowSeconds() + 30;
    const body = await exactRequest(payer, requirements(seller.address, { amount: '1000' }), { validBefore: String(validBefore) });
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    // Another payload with the same nonce (another value: not the stored receipt of the first).
    const nonce = body.paymentPayload.payload.authorization.nonce as `0x${string}`;
    const replay = await exactRequest(payer, requirements(seller.address, { amount: '1000' }), { nonce, value: '1001', validBefore: String(validBefore) });
    const verified = await request(h.app).post('/verify').send(replay).expect(200);
    assert.equal(verified.body.isValid, false);
    assert.equal(verified.body.invalidReason, 'invalid_exact_evm_nonce_already_used');
    const settled = await request(h.app).post('/settle').send(replay).expect(200);
    assert.equal(settled.body.success, false);
    assert.equal(settled.body.errorReason, 'invalid_exact_evm_nonce_already_used');
    assert.equal(await balance(payer.address), 99_000n);

    const key = keys.ledgerUsedNonces(NETWORK, exactSpace(payer.address));
    const keepUntil = validBefore * 1000 + USED_NONCE_MARGIN_MS;
    assert.equal(Number(await h.redis.zscore(key, nonce)), keepUntil);
    assert.equal(await h.redis.pexpiretime(key), keepUntil);
    assert.equal(await h.redis.exists(keys.ledgerNonces(NETWORK, exactSpace(payer.address))), 0, 'the old set form is no longer written');
  });

  it('upto: the Permit2 nonce is kept until the deadline plus the margin and refused meanwhile', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fund(payer.address);
    const deadline = nowSeconds() + 40;
    const body = await uptoRequest(payer, requirements(seller.address, { amount: '500' }), { deadline: String(deadline) });
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    const permit = body.paymentPayload.payload.permit2Authorization;
    const replay = await uptoRequest(payer, requirements(seller.address, { amount: '400' }), { deadline: String(deadline), nonce: permit.nonce });
    const settled = await request(h.app).post('/settle').send(replay).expect(200);
    assert.equal(settled.body.success, false);
    assert.equal(settled.body.errorReason, 'permit2_invalid_nonce');
    const key = keys.ledgerUsedNonces(NETWORK, `permit2:${payer.address.toLowerCase()}`);
    assert.equal(Number(await h.redis.zscore(key, permit.nonce)), deadline * 1000 + USED_NONCE_MARGIN_MS);
  });

  it('forgets the nonce after its keep-until time, and still refuses to settle it then', async () => {
    // A ledger with no margin, so the record goes at validBefore itself: the test waits seconds, not minutes.
    const ledger = new Ledger(h.redis, h.config.redisPrefix, 10n ** 18n, 0);
    const payer = newWallet();
    const seller = newWallet();
    await fund(payer.address);
    const validBefore = BigInt(nowSeconds() + 2);
    const transfer: Transfer = {
      network: NETWORK, asset: USDC.toLowerCase(), from: payer.address.toLowerCase(), to: seller.address.toLowerCase(),
      amount: 100n, nonceSpace: exactSpace(payer.address), nonce: '0x' + '11'.repeat(32), validBefore,
    };
    assert.equal(await ledger.settle(transfer, 0n), 'ok');
    assert.equal(await ledger.settle(transfer, 0n), 'nonce_used');
    assert.equal((await ledger.inspect(transfer)).nonceUsed, true);
    const key = keys.ledgerUsedNonces(NETWORK, transfer.nonceSpace);
    // Gone once Redis's clock passes validBefore (the key expires with its last member).
    await waitFor(async () => (await h.redis.exists(key)) === 0, 6000, 200);
    assert.equal((await ledger.inspect(transfer)).nonceUsed, false);
    // ...and the ledger itself refuses it (whatever a facilitator's clock says): nothing moves.
    assert.equal(await ledger.settle(transfer, 0n), 'expired');
    assert.equal(await balance(payer.address), 99_900n);
    assert.equal(await h.redis.exists(key), 0);
  });

  it('trims expired nonces of a nonce space on its next settle', async () => {
    const ledger = new Ledger(h.redis, h.config.redisPrefix, 10n ** 18n, 0);
    const payer = newWallet();
    await fund(payer.address);
    const base = { network: NETWORK, asset: USDC.toLowerCase(), from: payer.address.toLowerCase(), to: newWallet().address.toLowerCase(), amount: 1n, nonceSpace: exactSpace(payer.address) };
    assert.equal(await ledger.settle({ ...base, nonce: '0x' + '21'.repeat(32), validBefore: BigInt(nowSeconds() + 1) }, 0n), 'ok');
    assert.equal(await ledger.settle({ ...base, nonce: '0x' + '22'.repeat(32), validBefore: BigInt(nowSeconds() + 3600) }, 0n), 'ok');
    await sleep(2100);
    assert.equal(await ledger.settle({ ...base, nonce: '0x' + '23'.repeat(32), validBefore: BigInt(nowSeconds() + 3600) }, 0n), 'ok');
    const key = keys.ledgerUsedNonces(NETWORK, base.nonceSpace);
    assert.deepEqual((await h.redis.zrange(key, 0, -1)).sort(), ['0x' + '22'.repeat(32), '0x' + '23'.repeat(32)]);
  });

  it('refuses an authorization already past its keep-until time by the ledger clock, moving nothing', async () => {
    const ledger = new Ledger(h.redis, h.config.redisPrefix, 10n ** 18n);
    const payer = newWallet();
    await fund(payer.address);
    const transfer: Transfer = {
      network: NETWORK, asset: USDC.toLowerCase(), from: payer.address.toLowerCase(), to: newWallet().address.toLowerCase(),
      amount: 100n, nonceSpace: exactSpace(payer.address), nonce: '0x' + '31'.repeat(32),
      validBefore: BigInt(nowSeconds() - USED_NONCE_MARGIN_MS / 1000 - 1),
    };
    assert.equal(await ledger.settle(transfer, 0n), 'expired');
    assert.equal(await balance(payer.address), 100_000n);
    assert.equal(await h.redis.exists(keys.ledgerUsedNonces(NETWORK, transfer.nonceSpace)), 0);
  });

  it('keeps forever the nonce of an authorization valid past year 9999', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fund(payer.address);
    const forever = (2n ** 256n - 1n).toString();
    const body = await exactRequest(payer, requirements(seller.address, { amount: '1000' }), { validBefore: forever });
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    const nonce = body.paymentPayload.payload.authorization.nonce as `0x${string}`;
    const key = keys.ledgerUsedNonces(NETWORK, exactSpace(payer.address));
    assert.equal(await h.redis.zscore(key, nonce), 'inf');
    assert.equal(await h.redis.pttl(key), -1);
    // A later nonce with an expiry does not give the key one while the eternal nonce is in it.
    const later = await exactRequest(payer, requirements(seller.address, { amount: '1000' }), { validBefore: String(nowSeconds() + 60) });
    assert.equal((await request(h.app).post('/settle').send(later).expect(200)).body.success, true);
    assert.equal(await h.redis.pttl(key), -1);
    const replay = await exactRequest(payer, requirements(seller.address, { amount: '1000' }), { nonce, value: '1001', validBefore: forever });
    assert.equal((await request(h.app).post('/settle').send(replay).expect(200)).body.errorReason, 'invalid_exact_evm_nonce_already_used');
  });

  it('nonces used before the change (a set per nonce space) still count as used, with no WRONGTYPE', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fund(payer.address);
    const req = requirements(seller.address, { amount: '1000' });
    const old = await exactRequest(payer, req);
    const nonce = old.paymentPayload.payload.authorization.nonce as `0x${string}`;
    // What the ledger wrote before: the nonce in a plain set, kept forever.
    await h.redis.sadd(keys.ledgerNonces(NETWORK, exactSpace(payer.address)), nonce.toLowerCase());
    const verified = await request(h.app).post('/verify').send(old).expect(200);
    assert.equal(verified.body.invalidReason, 'invalid_exact_evm_nonce_already_used');
    const settled = await request(h.app).post('/settle').send(old).expect(200);
    assert.equal(settled.body.errorReason, 'invalid_exact_evm_nonce_already_used');
    assert.equal(await balance(payer.address), 100_000n);
    // Another payment of the same payer settles beside the old set.
    const fresh = await exactRequest(payer, req);
    assert.equal((await request(h.app).post('/settle').send(fresh).expect(200)).body.success, true);
    assert.equal(await balance(payer.address), 99_000n);
  });
});
