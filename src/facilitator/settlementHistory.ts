/**
 * Evidence a seller and a buyer can check (issue 44, item 7): every settlement this facilitator
 * sent on chain, readable by its transaction hash and per payTo (GET /settlements?payTo=,
 * GET /settlements/{transaction}). Recorded once the transaction was mined, from what the
 * facilitator itself settled, so each entry is checkable against the chain by its hash and
 * nobody can add one without paying that payTo for real. Best effort: recording never changes a
 * settlement's answer. Bounded by SETTLEMENTS_PER_PAYEE and SETTLEMENT_RETENTION_DAYS.
 */
import type { Clock } from '../core/clock.js';
import { InvalidInput, NotFound, type FieldError } from '../core/errors.js';
import { parseLimit, rejectUnknown, throwIfAny } from '../core/queryParams.js';
import type { Logger } from '../logger.js';
import type { Settlement, SettlementsPage } from '../shapes/settlement.js';
import type { SettlementLog } from '../store/redis/settlementLog.js';

/** A payTo's list keeps its newest this many settlements. */
export const SETTLEMENTS_PER_PAYEE = 1000;
/** Every record expires this long after its latest write. */
export const SETTLEMENT_RETENTION_DAYS = 30;
export const SETTLEMENTS_DEFAULT_LIMIT = 100;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const MAX_RESOURCE = 2048;

/** What the settle path knows of a mined settlement. */
export interface MinedSettlement {
  transaction: string;
  network: string;
  scheme: string;
  payer: string;
  payTo: string;
  asset: string;
  amount: bigint;
  resource?: string;
  listingId?: string;
}

export class SettlementHistory {
  constructor(
    private readonly log: Pick<SettlementLog, 'add' | 'byHash' | 'ofPayee'>,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Records a mined settlement; never throws (the payment is already settled). */
  async record(mined: MinedSettlement): Promise<void> {
    const at = this.clock();
    const entry: Settlement = {
      transaction: mined.transaction.toLowerCase(),
      network: mined.network,
      scheme: mined.scheme,
      payer: mined.payer.toLowerCase(),
      payTo: mined.payTo.toLowerCase(),
      asset: mined.asset.toLowerCase(),
      amount: mined.amount.toString(),
      settledAt: new Date(at).toISOString(),
      ...(mined.resource && mined.resource.length <= MAX_RESOURCE ? { resource: mined.resource } : {}),
      ...(mined.listingId ? { listingId: mined.listingId } : {}),
    };
    try {
      await this.log.add(entry.transaction, entry.payTo, at, JSON.stringify(entry));
    } catch (err) {
      this.logger.warn('a settlement could not be recorded for its seller', { transaction: entry.transaction, err: (err as Error).message });
    }
  }

  /** GET /settlements/{transaction}: NotFound unless this facilitator settled it within the retention. */
  async byTransaction(transaction: string): Promise<Settlement> {
    const stored = HASH.test(transaction) ? await this.log.byHash(transaction.toLowerCase()) : undefined;
    if (!stored) throw new NotFound(`No settlement of this facilitator has the transaction ${transaction.slice(0, 80)} (kept ${SETTLEMENT_RETENTION_DAYS} days).`);
    return JSON.parse(stored) as Settlement;
  }

  /** GET /settlements?payTo=&limit=: one payTo's newest settlements (an empty list when none). */
  async ofPayee(query: Record<string, unknown>): Promise<SettlementsPage> {
    rejectUnknown(query, ['payTo', 'limit']);
    const errors: FieldError[] = [];
    const limit = parseLimit(query.limit, SETTLEMENTS_PER_PAYEE, SETTLEMENTS_DEFAULT_LIMIT, errors);
    const payTo = query.payTo;
    if (payTo === undefined) throw new InvalidInput('invalid_filter_value', 'payTo (the seller\'s address) is required.', [{ path: 'payTo', message: 'is required' }]);
    if (typeof payTo !== 'string' || !ADDRESS.test(payTo)) errors.push({ path: 'payTo', message: 'must be one 0x-prefixed 20-byte hex address' });
    throwIfAny(errors);
    const address = (payTo as string).toLowerCase();
    const entries = await this.log.ofPayee(address, limit);
    return { payTo: address, settlements: entries.map((entry) => JSON.parse(entry) as Settlement) };
  }
}
