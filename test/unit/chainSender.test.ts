/**
 * store/evm/sender.ts over a fake node and in-memory journal and lock: the nonce Redis hands on,
 * the node asked only when there is none or it refuses one as used, the journal written before
 * the broadcast and forgotten only when the node refused the transaction outright.
 */
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { NetworkClient } from '../../src/store/evm/chainClients.js';
import { JournalTaken, TransactionSender, type JournalEntry, type SenderCoordination, type TxJournal } from '../../src/store/evm/sender.js';

function world() {
  const journal = new Map<string, JournalEntry>();
  const journaledBeforeSend: boolean[] = [];
  let stored: number | undefined;
  const node = { pending: 0, counts: 0, sent: [] as string[], refuse: [] as Error[] };
  const store: TxJournal = {
    get: async (key) => journal.get(key),
    claim: async (key, entry) => {
      const taken = journal.get(key);
      if (taken) return taken;
      journal.set(key, entry);
      return undefined;
    },
    drop: async (key, hash) => void (journal.get(key)?.hash === hash && journal.delete(key)),
  };
  let chain = Promise.resolve<unknown>(undefined);
  const lock: SenderCoordination = {
    withSender: (_sender, fn) => {
      const run = chain.then(async () => {
        const { value, next } = await fn(stored);
        if (next !== undefined && next > (stored ?? -1)) stored = next;
        return value;
      });
      chain = run.catch(() => undefined);
      return run;
    },
  };
  const client = {
    estimateGas: async () => 80_000n,
    estimateFeesPerGas: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
    getTransactionCount: async () => (node.counts++, node.pending),
    sendRawTransaction: async ({ serializedTransaction }: { serializedTransaction: string }) => {
      journaledBeforeSend.push([...journal.values()].some((e) => e.raw === serializedTransaction));
      const refusal = node.refuse.shift();
      if (refusal) throw refusal;
      node.sent.push(serializedTransaction);
      node.pending++;
      return '0x';
    },
  };
  const net = { network: 'eip155:84532', chainId: 84532, client } as unknown as NetworkClient;
  const sender = new TransactionSender(privateKeyToAccount(generatePrivateKey()), lock, store);
  const call = { to: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const, data: '0x' as const };
  return { journal, journaledBeforeSend, node, sender, net, call, stored: () => stored, setStored: (n: number) => (stored = n) };
}

describe('unit: the chain sender', () => {
  it('journals before broadcasting, asks the node once, then hands the nonce on through Redis', async () => {
    const w = world();
    w.node.pending = 5;
    await Promise.all([1, 2, 3].map((i) => w.sender.send(w.net, w.call, `auth-${i}`)));
    assert.equal(w.node.sent.length, 3);
    assert.deepEqual(w.journaledBeforeSend, [true, true, true]);
    assert.equal(w.node.counts, 1, 'the pending count is read once');
    assert.equal(w.stored(), 8);
  });

  it('an authorization already journaled sends nothing: JournalTaken names the first transaction', async () => {
    const w = world();
    const first = await w.sender.send(w.net, w.call, 'auth');
    await assert.rejects(w.sender.send(w.net, w.call, 'auth'), (err: unknown) => err instanceof JournalTaken && err.entry.hash === first.hash);
    assert.equal(w.node.sent.length, 1);
  });

  it('a nonce the node refuses as used: the journal forgets that transaction and the node\'s count is asked once', async () => {
    const w = world();
    w.setStored(2);
    w.node.pending = 4;
    w.node.refuse.push(new Error('Nonce too low. Expected nonce to be 4 but got 2.'));
    const { hash } = await w.sender.send(w.net, w.call, 'auth');
    assert.equal(w.journal.get('auth')?.hash, hash, 'the journal holds the transaction that went out');
    assert.equal(w.node.sent.length, 1);
    assert.equal(w.stored(), 5);
  });

  it('a transport failure keeps the journal entry (the node may have it); a plain refusal drops it', async () => {
    const w = world();
    const lost = Object.assign(new Error('socket hang up'), { name: 'HttpRequestError' });
    w.node.refuse.push(lost);
    await assert.rejects(w.sender.send(w.net, w.call, 'auth-a'), /socket hang up/);
    assert.ok(w.journal.get('auth-a'), 'kept for the retry to re-broadcast');
    w.node.refuse.push(new Error('insufficient funds for gas * price + value'));
    await assert.rejects(w.sender.send(w.net, w.call, 'auth-b'), /insufficient funds/);
    assert.equal(w.journal.get('auth-b'), undefined, 'never mined: forgotten');
  });
});
