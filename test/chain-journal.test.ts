/**
 * The Redis side of settling on a chain (issue 44), without a chain: the transaction journal
 * (store/redis/txJournal.ts: the first entry of an authorization wins, a dead one is forgotten only
 * while it is still the entry) and the one-sender lock (store/redis/senderLock.ts: one holder at a
 * time across instances, the next nonce stored with the release and never moved back).
 */
import assert from 'node:assert/strict';
import { LOCK_TTL_MS, SenderLock } from '../src/store/redis/senderLock.js';
import { TxJournalStore } from '../src/store/redis/txJournal.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { startHarness, type Harness } from './support/harness.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;

describe('chain settlement: the journal and the sender lock in Redis', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, { workers: false });
  });
  after(() => h.close());

  it('the journal keeps the first transaction of an authorization; drop forgets only the one named', async () => {
    const journal = new TxJournalStore(h.redis, h.config.redisPrefix);
    const key = 'eip155:84532:eip3009:0xusdc:0xbuyer:0x01';
    assert.equal(await journal.get(key), undefined);
    assert.equal(await journal.claim(key, { hash: hash(1), raw: '0x01' }), undefined, 'claimed');
    assert.deepEqual(await journal.claim(key, { hash: hash(2), raw: '0x02' }), { hash: hash(1), raw: '0x01' }, 'a second settlement finds the first');
    await journal.drop(key, hash(2));
    assert.equal((await journal.get(key))?.hash, hash(1), 'another hash does not drop it');
    await journal.drop(key, hash(1));
    assert.equal(await journal.get(key), undefined);
    assert.equal(await journal.claim(key, { hash: hash(3), raw: '0x03' }), undefined, 'a dead transaction replaced');
    assert.ok((await h.redis.ttl(`${h.config.redisPrefix}{ledger}settle:tx:${key}`)) > 7 * 24 * 3600);
  });

  it('one sender at a time across instances; the next nonce is handed on and never moves back', async () => {
    const a = new SenderLock(h.redis, h.config.redisPrefix);
    const b = new SenderLock(h.redis, h.config.redisPrefix);
    const sender = 'eip155:84532:0xfacilitator';
    const seen: Array<number | undefined> = [];
    let inside = 0;
    let most = 0;
    const send = (lock: SenderLock) =>
      lock.withSender(sender, async (next) => {
        inside++;
        most = Math.max(most, inside);
        seen.push(next);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inside--;
        const nonce = next ?? 7;
        return { value: nonce, next: nonce + 1 };
      });
    const nonces = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 ? a : b)));
    assert.equal(most, 1, 'never two holders');
    assert.deepEqual([...nonces].sort((x, y) => x - y), [7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    assert.equal(seen[0], undefined, 'the first holder asks the node');
    await a.withSender(sender, async () => ({ value: 0, next: 3 }));
    assert.equal(await a.withSender(sender, async (next) => ({ value: next })), 17, 'a lower next is not stored');
    await assert.rejects(a.withSender(sender, async () => Promise.reject(new Error('broadcast failed'))), /broadcast failed/);
    assert.equal(await b.withSender(sender, async (next) => ({ value: next })), 17, 'a failed send releases the lock and keeps the nonce');
  });

  it('a holder working past the lock\'s expiry keeps it; a holder that died lets the next one in once it lapses', async () => {
    const a = new SenderLock(h.redis, h.config.redisPrefix);
    const b = new SenderLock(h.redis, h.config.redisPrefix);
    const sender = 'eip155:84532:0xslow';
    const order: string[] = [];
    const slow = a.withSender(sender, async () => {
      order.push('a in');
      await new Promise((resolve) => setTimeout(resolve, LOCK_TTL_MS * 2));
      order.push('a out');
      return { value: 0 };
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await b.withSender(sender, async () => {
      order.push('b in');
      return { value: 0 };
    });
    await slow;
    assert.deepEqual(order, ['a in', 'a out', 'b in'], 'never two holders, however long the first works');

    // A gateway killed while holding the lock: its token stays until the expiry, then the next sender goes.
    const dead = 'eip155:84532:0xdead';
    await h.redis.set(redisKeys(h.config.redisPrefix).senderLock(dead), 'a-dead-gateway', 'PX', LOCK_TTL_MS);
    const value = await b.withSender(dead, async () => ({ value: 'sent' }));
    assert.equal(value, 'sent');
  });
});
