/**
 * Every Redis adapter of one deployment (one connection, one key prefix), built on demand: what
 * the features' `index.ts` ask for instead of holding the Redis client themselves.
 */
import type { BackgroundWorker } from '../../core/worker.js';
import type { Logger } from '../../logger.js';
import type { RedisClient } from './client.js';
import { redisKeys } from './redisKeys.js';
import { ChangeLog } from './changeLog.js';
import { cursorSecretProvider } from './cursorSecret.js';
import { HealthChecks } from './healthChecks.js';
import { HistoryLog } from './historyLog.js';
import { hotPathConnection } from './hotPathConnection.js';
import { RedisLease } from './lease.js';
import { Ledger } from './ledger.js';
import { OutcomeTrail } from './outcomeTrail.js';
import { PayerPaymentCounter } from './payerPayments.js';
import { ProbeStore } from './probeStore.js';
import { PublishOwners } from './publishOwners.js';
import { RateLimitCounter } from './rateLimitCounter.js';
import { FederationStore } from './federationStore.js';
import { SellerTokenRecords } from './sellerTokens.js';
import { SettlementStore } from './settlementStore.js';
import { SettlementLog } from './settlementLog.js';
import { SenderLock } from './senderLock.js';
import { TxJournalStore } from './txJournal.js';
import { SignalStore } from './signalStore.js';
import { PendingCredits, type PendingCreditBounds } from './pendingCredits.js';
import { SponsorLedger } from './sponsorLedger.js';
import { OptOuts } from './optOuts.js';
import { WriteStream } from './writeStream.js';

export class RedisStores {
  constructor(
    private readonly redis: RedisClient,
    readonly prefix: string,
  ) {}

  /**
   * The same adapters on a second connection of their own with auto-pipelining (the facilitator's
   * hot path, store/redis/hotPathConnection.ts); `closer` closes it.
   */
  hotPath(onError: (err: Error) => void): { stores: RedisStores; closer: BackgroundWorker } {
    const connection = hotPathConnection(this.redis, onError);
    return { stores: new RedisStores(connection.redis, this.prefix), closer: connection.closer };
  }

  /** The lease `name` (one holder at a time among the instances), held for `ttlMs` per pass. */
  lease(name: string, ttlMs: number): RedisLease {
    return new RedisLease(this.redis, redisKeys(this.prefix).lease(name), ttlMs);
  }

  /** Payers' recent searches and who paid whom (src/outcomes). */
  outcomeTrail(): OutcomeTrail {
    return new OutcomeTrail(this.redis, this.prefix);
  }

  writeStream(): WriteStream {
    return new WriteStream(this.redis, this.prefix);
  }

  changeLog(): ChangeLog {
    return new ChangeLog(this.redis, this.prefix);
  }

  historyLog(cap: number): HistoryLog {
    return new HistoryLog(this.redis, this.prefix, cap);
  }

  cursorSecret(configured: string | undefined, logger: Logger): () => Promise<Buffer> {
    return cursorSecretProvider({ configured, redis: this.redis, redisPrefix: this.prefix, logger });
  }

  probes(): ProbeStore {
    return new ProbeStore(this.redis, this.prefix);
  }

  federation(): FederationStore {
    return new FederationStore(this.redis, this.prefix);
  }

  healthChecks(): HealthChecks {
    return new HealthChecks(this.redis, this.prefix);
  }

  sellerTokens(): SellerTokenRecords {
    return new SellerTokenRecords(this.redis, this.prefix);
  }

  publishOwners(): PublishOwners {
    return new PublishOwners(this.redis, this.prefix);
  }

  rateLimitCounter(): RateLimitCounter {
    return new RateLimitCounter(this.redis, this.prefix);
  }

  ledger(sponsorInitialWei: bigint): Ledger {
    return new Ledger(this.redis, this.prefix, sponsorInitialWei);
  }

  signalStore(): SignalStore {
    return new SignalStore(this.redis, this.prefix);
  }

  settlements(pendingWaitMs: number): SettlementStore {
    return new SettlementStore(this.redis, this.prefix, pendingWaitMs);
  }

  /** The settlements sent on chain, by hash and per payTo (src/facilitator/settlementHistory.ts). */
  settlementLog(perPayee: number, ttlSeconds: number): SettlementLog {
    return new SettlementLog(this.redis, this.prefix, perPayee, ttlSeconds);
  }

  /** The chain settlements' transaction journal (written before each broadcast). */
  txJournal(): TxJournalStore {
    return new TxJournalStore(this.redis, this.prefix);
  }

  /** The one-sender-per-key lock and nonce of the facilitator's chain transactions. */
  senderLock(): SenderLock {
    return new SenderLock(this.redis, this.prefix);
  }

  payerPayments(): PayerPaymentCounter {
    return new PayerPaymentCounter(this.redis, this.prefix);
  }

  pendingCredits(bounds: PendingCreditBounds): PendingCredits {
    return new PendingCredits(this.redis, this.prefix, bounds);
  }

  sponsorLedger(): SponsorLedger {
    return new SponsorLedger(this.redis, this.prefix);
  }

  optOuts(): OptOuts {
    return new OptOuts(this.redis, this.prefix);
  }
}
