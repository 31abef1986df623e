/**
 * Sending the facilitator's transactions (issue 44), one sender per key across every gateway:
 * choosing the account nonce, signing, journaling and broadcasting happen while holding a lock
 * in Redis for that (network, address) (`SenderCoordination`, store/redis/senderLock.ts), and each
 * process queues its own sends behind one another so they do not fight over that lock. The nonce
 * is the next one Redis holds (stored with the lock's release after each broadcast), so a gateway
 * never reuses a nonce another one broadcast to a node that has not seen it yet (a load-balanced
 * RPC); the node's pending count is read only when Redis has none, or once when the node refuses
 * the nonce as used (the key sent elsewhere, or a broadcast whose answer was lost).
 *
 * Why one sender and not a key per gateway: one account is one balance to watch and fund (the
 * sponsor floor), and the lock costs a few Redis round trips per transaction, not its mining
 * time, because the receipt is awaited outside it. The limit: sends of one key are serial, so one
 * key carries about 1 / (lock + sign + journal + broadcast) transactions a second (lab/journal
 * 2026-12-02-settle-chain.md); past that, more keys (one per gateway) is the next step.
 *
 * The journal entry (the signed transaction and its hash) is written BEFORE the broadcast: a
 * gateway that dies right after it leaves a transaction the next attempt re-broadcasts byte for
 * byte (the same hash) or proves dead (its nonce taken by another), never a second payment.
 */
import { keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { NetworkClient } from './chainClients.js';

export interface JournalEntry {
  hash: Hex;
  raw: Hex;
  /**
   * Which signed authorization the transaction settles (a hash of its signature): another one
   * under the same key reuses a used nonce and is refused, never answered with this transaction.
   * Absent in entries journaled before it was recorded.
   */
  payment?: Hex;
}

/** Where each settlement's transaction is recorded before it is broadcast (store/redis/txJournal.ts). */
export interface TxJournal {
  get(key: string): Promise<JournalEntry | undefined>;
  /** Records `entry` unless the key holds one already; returns that one then (nothing may be sent). */
  claim(key: string, entry: JournalEntry): Promise<JournalEntry | undefined>;
  /** Forgets the key's entry if it is still `hash` (a transaction proven dead). */
  drop(key: string, hash: Hex): Promise<void>;
}

/** The cross-gateway lock of one sender and the next nonce it handed out (store/redis/senderLock.ts). */
export interface SenderCoordination {
  withSender<T>(sender: string, fn: (storedNext: number | undefined) => Promise<{ value: T; next?: number }>): Promise<T>;
}

export interface Call {
  to: Hex;
  data: Hex;
}

/** Another settlement of the same authorization holds the journal: nothing was sent. */
export class JournalTaken extends Error {
  constructor(readonly entry: JournalEntry) {
    super('another settlement of this authorization already has a transaction');
  }
}

const NONCE_TOO_LOW = /nonce too low|nonce has already been used|replacement transaction underpriced/i;
const FEES_FRESH_MS = 1000;
const ALREADY_KNOWN = /already known|known transaction/i;

function messageOf(err: unknown): string {
  return err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err);
}

export function isNonceTaken(err: unknown): boolean {
  return NONCE_TOO_LOW.test(messageOf(err));
}

export class TransactionSender {
  /** Per sender key, the tail of this process's queue of sends. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly feeCache = new Map<string, { at: number; fees: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> }>();

  constructor(
    private readonly account: PrivateKeyAccount,
    private readonly coordination: SenderCoordination,
    private readonly journal: TxJournal,
  ) {}

  /**
   * Estimates, signs, journals under `journalKey` and broadcasts `call`. Throws JournalTaken when
   * the key already holds a transaction; a broadcast error after journaling leaves the entry for
   * the next attempt to re-broadcast, unless the node refused it outright (then it is dropped).
   * `payment` names the authorization the transaction settles (JournalEntry.payment).
   */
  async send(net: NetworkClient, call: Call, journalKey: string, payment?: Hex): Promise<{ hash: Hex }> {
    const { client, chainId } = net;
    const from = this.account.address;
    // Outside the lock: the estimate (a simulation too) and the fees take round trips of their own.
    const [gas, fees] = await Promise.all([client.estimateGas({ account: from, to: call.to, data: call.data }), this.fees(net)]);
    const senderKey = `${net.network}:${from.toLowerCase()}`;
    return this.queued(senderKey, () =>
      this.coordination.withSender(senderKey, async (storedNext) => {
        // The next nonce Redis holds is the one to use; the node is asked only when Redis has none,
        // or when the node refused it as used (the key sent elsewhere, or a broadcast whose answer was lost).
        let nonce = storedNext ?? (await client.getTransactionCount({ address: from, blockTag: 'pending' }));
        for (let attempt = 0; ; attempt++) {
          const raw = await this.account.signTransaction({
            chainId,
            type: 'eip1559',
            to: call.to,
            data: call.data,
            nonce,
            // 20% headroom: the estimate is against the latest block, the transaction lands in a later one.
            gas: (gas * 12n) / 10n,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          });
          const entry: JournalEntry = { hash: keccak256(raw), raw, ...(payment ? { payment } : {}) };
          const taken = await this.journal.claim(journalKey, entry);
          if (taken) throw new JournalTaken(taken);
          try {
            await client.sendRawTransaction({ serializedTransaction: raw });
            return { value: { hash: entry.hash }, next: nonce + 1 };
          } catch (err) {
            if (ALREADY_KNOWN.test(messageOf(err))) return { value: { hash: entry.hash }, next: nonce + 1 };
            // Refused outright (the nonce went elsewhere, no gas): it can never be mined, so it is forgotten.
            if (!isAmbiguous(err)) await this.journal.drop(journalKey, entry.hash);
            if (attempt > 0 || !isNonceTaken(err)) throw err;
            nonce = Math.max(nonce + 1, await client.getTransactionCount({ address: from, blockTag: 'pending' }));
          }
        }
      }),
    );
  }

  /** Re-broadcasts a journaled transaction; false when its nonce went to another (it can never be mined). */
  async rebroadcast(net: NetworkClient, entry: JournalEntry): Promise<boolean> {
    try {
      await net.client.sendRawTransaction({ serializedTransaction: entry.raw });
      return true;
    } catch (err) {
      if (ALREADY_KNOWN.test(messageOf(err))) return true;
      if (isNonceTaken(err)) return false;
      throw err;
    }
  }

  /**
   * The fees of a transaction, read at most once a second per network: two round trips (the latest
   * block and the priority fee) a settlement saves, and viem's estimate already doubles the base
   * fee, far more than a second of blocks can raise it.
   */
  private fees(net: NetworkClient): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const now = Date.now();
    const cached = this.feeCache.get(net.network);
    if (cached && now - cached.at < FEES_FRESH_MS) return cached.fees;
    const fees = net.client.estimateFeesPerGas();
    this.feeCache.set(net.network, { at: now, fees });
    fees.catch(() => this.feeCache.delete(net.network));
    return fees;
  }

  private queued<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.queues.set(key, next);
    void next.finally(() => this.queues.get(key) === next && this.queues.delete(key)).catch(() => undefined);
    return next;
  }
}

/** A transport failure: the node may or may not have the transaction, so the journal keeps it. */
function isAmbiguous(err: unknown): boolean {
  const name = (err as { name?: string }).name ?? '';
  return /HttpRequestError|TimeoutError|SocketClosedError|FetchError/.test(name);
}
