/**
 * In-memory test-network ledger (store/redis/ledger.ts) and settlement receipts
 * (store/redis/settlementStore.ts), the ports the facilitator moves money through, with the
 * rules of their scripts: a nonce is used once per nonce space, a movement needs the payer's
 * balance and the sponsor's fee, and the settlement's receipt is written with the movement or not
 * at all; a receipt answers only the request it was bound to. Balances are case-insensitive in
 * asset and address, as the Redis keys are. Tested against Redis in test/facilitator-settle.test.ts.
 */
import type { Ledger, LedgerState, SettlementRecord, SettleOutcome, Transfer } from '../../../src/store/redis/ledger.js';
import type { SettlementStore, StoredOutcome } from '../../../src/store/redis/settlementStore.js';

export interface FakeLedger {
  ledger: Ledger;
  settlements: SettlementStore;
  fund(network: string, asset: string, address: string, amount: bigint): void;
  balance(network: string, asset: string, address: string): bigint;
  sponsor(network: string): bigint;
  setSponsor(network: string, wei: bigint): void;
  /** Settlements that moved value, in order. */
  readonly movements: Transfer[];
}

export function fakeLedger(sponsorInitialWei = 10n ** 18n): FakeLedger {
  const balances = new Map<string, bigint>();
  const nonces = new Set<string>();
  const sponsors = new Map<string, bigint>();
  const receipts = new Map<string, string>();
  const locks = new Set<string>();
  const movements: Transfer[] = [];
  const key = (network: string, asset: string, address: string) => `${network}|${asset.toLowerCase()}|${address.toLowerCase()}`;
  const sponsorOf = (network: string) => sponsors.get(network) ?? sponsorInitialWei;
  const balanceOf = (network: string, asset: string, address: string) => balances.get(key(network, asset, address)) ?? 0n;

  const ledger = {
    async inspect(transfer: Transfer): Promise<LedgerState> {
      return {
        nonceUsed: nonces.has(`${transfer.network}|${transfer.nonceSpace}|${transfer.nonce}`),
        balance: balanceOf(transfer.network, transfer.asset, transfer.from),
        sponsorBalance: sponsorOf(transfer.network),
      };
    },
    async settle(transfer: Transfer, feeWei: bigint, record?: SettlementRecord): Promise<SettleOutcome> {
      const nonce = `${transfer.network}|${transfer.nonceSpace}|${transfer.nonce}`;
      if (nonces.has(nonce)) return 'nonce_used';
      if (balanceOf(transfer.network, transfer.asset, transfer.from) < transfer.amount) return 'insufficient_funds';
      if (sponsorOf(transfer.network) < feeWei) return 'sponsor_insufficient_funds';
      nonces.add(nonce);
      balances.set(key(transfer.network, transfer.asset, transfer.from), balanceOf(transfer.network, transfer.asset, transfer.from) - transfer.amount);
      balances.set(key(transfer.network, transfer.asset, transfer.to), balanceOf(transfer.network, transfer.asset, transfer.to) + transfer.amount);
      sponsors.set(transfer.network, sponsorOf(transfer.network) - feeWei);
      if (record) receipts.set(record.key, record.value);
      movements.push(transfer);
      return 'ok';
    },
    async balance(network: string, asset: string, address: string) {
      return balanceOf(network, asset, address);
    },
  };

  const settlements = {
    resultKey: (hash: string) => `settle:result:${hash}`,
    receipt: <T>(binding: string, result: T) => JSON.stringify({ request: binding, result }),
    async once<T>(hash: string, binding: string, settle: () => Promise<{ result: T; final: boolean }>): Promise<StoredOutcome<T>> {
      const stored = receipts.get(settlements.resultKey(hash));
      if (stored) {
        const receipt = JSON.parse(stored) as { request: string; result: T };
        return receipt.request === binding ? { result: receipt.result, replayed: true } : { mismatch: true };
      }
      // The real store waits for the holder up to SETTLE_PENDING_WAIT_MS; a fake holder is never slow.
      if (locks.has(hash)) return { pending: true };
      locks.add(hash);
      try {
        const outcome = await settle();
        if (outcome.final) receipts.set(settlements.resultKey(hash), settlements.receipt(binding, outcome.result));
        return { result: outcome.result, replayed: false };
      } finally {
        locks.delete(hash);
      }
    },
  };

  return {
    // Classes with private members: cast, only these methods are used by the facilitator.
    ledger: ledger as unknown as Ledger,
    settlements: settlements as unknown as SettlementStore,
    fund: (network, asset, address, amount) => balances.set(key(network, asset, address), balanceOf(network, asset, address) + amount),
    balance: balanceOf,
    sponsor: sponsorOf,
    setSponsor: (network, wei) => sponsors.set(network, wei),
    movements,
  };
}
