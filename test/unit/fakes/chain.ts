/**
 * An in-memory chain under the facilitator (store/evm/chainAdapter.ts, the port ChainRail settles
 * through) and its settlement receipts (store/redis/settlementStore.ts), with the chain's rules:
 * token balances and Permit2 allowances per address, an authorization (its journal key) used once:
 * the same authorization again answers with its first transaction, another one with a used nonce
 * is refused; the facilitator account's native balance pays each transaction's gas, a reverted one
 * too. The real adapter runs on the dev node (test/facilitator-chain.test.ts,
 * test/facilitator-upto-chain.test.ts); the real receipts store on Redis.
 */
import type { ChainAdapter, ChainPayment, ChainSettlement } from '../../../src/store/evm/chainAdapter.js';
import type { SettlementStore, StoredOutcome } from '../../../src/store/redis/settlementStore.js';

/** The gas one settlement costs the fake's facilitator account, in wei. */
export const FAKE_FEE = 90_000n * 1_000_000_000n;
export const FAKE_ACCOUNT = '0x00000000000000000000000000000000000000Fa';

const fromOf = (p: ChainPayment) => (p.kind === 'eip3009' ? p.authorization.from : p.permit2Authorization.from).toLowerCase();
const toOf = (p: ChainPayment) => (p.kind === 'eip3009' ? p.authorization.to : p.permit2Authorization.witness.to).toLowerCase();
const keyOf = (p: ChainPayment) => (p.kind === 'eip3009' ? `3009:${p.asset.toLowerCase()}:${fromOf(p)}:${p.authorization.nonce}` : `permit2:${fromOf(p)}:${p.permit2Authorization.nonce}`);
const amountOf = (p: ChainPayment) => BigInt(p.kind === 'eip3009' ? p.authorization.value : p.amount);
const nonceUsedReason = (p: ChainPayment) => (p.kind === 'eip3009' ? 'invalid_exact_evm_nonce_already_used' : 'permit2_invalid_nonce');

export function fakeChain(network: string) {
  const balances = new Map<string, bigint>();
  const allowances = new Map<string, bigint>();
  /** Per authorization key: its transaction and the signature it was sent for. */
  const used = new Map<string, { transaction: string; signature: string }>();
  const chain = {
    sponsor: 10n ** 18n,
    sends: 0,
    /** Transfers mined successfully, in order. */
    movements: [] as Array<{ from: string; to: string; amount: bigint }>,
    /** The next settle answers `settlement_pending` (a receipt that did not come in time). */
    pendingOnce: false,
    /** The next settle's transaction is mined and reverts: its gas is paid, nothing moves. */
    revertOnce: false,
    simulation: { ok: true } as { ok: true } | { ok: false; reason: string },
    address: FAKE_ACCOUNT,
    networks: () => [network],
    key: keyOf,
    state: async (p: ChainPayment) => ({
      balance: balances.get(fromOf(p)) ?? 0n,
      nonceUsed: used.has(keyOf(p)),
      ...(p.kind === 'permit2-upto' ? { allowance: allowances.get(fromOf(p)) ?? 0n } : {}),
    }),
    tokenBalance: async (_network: string, _asset: string, owner: string) => balances.get(owner.toLowerCase()) ?? 0n,
    simulate: async () => chain.simulation,
    sponsorBalance: async () => chain.sponsor,
    feeEstimate: async () => FAKE_FEE,
    journaled: async (key: string) => used.get(key)?.transaction,
    settle: async (p: ChainPayment): Promise<ChainSettlement> => {
      const first = used.get(keyOf(p));
      if (first && first.signature === p.signature) return { ok: true, transaction: first.transaction as `0x${string}`, feeWei: 0n };
      if (first) return { ok: false, reason: nonceUsedReason(p), message: 'the nonce is used', transaction: '', feeWei: 0n };
      if ((balances.get(fromOf(p)) ?? 0n) < amountOf(p)) return { ok: false, reason: 'invalid_exact_evm_insufficient_balance', message: 'balance', transaction: '', feeWei: 0n };
      chain.sends += 1;
      const transaction = `0x${chain.sends.toString(16).padStart(64, '0')}`;
      if (chain.revertOnce) {
        chain.revertOnce = false;
        chain.sponsor -= FAKE_FEE / 2n;
        return { ok: false, reason: 'invalid_exact_evm_transaction_failed', message: 'reverted', transaction, feeWei: FAKE_FEE / 2n };
      }
      used.set(keyOf(p), { transaction, signature: p.signature });
      if (chain.pendingOnce) {
        chain.pendingOnce = false;
        return { ok: false, reason: 'settlement_pending', message: 'timed out', transaction, feeWei: 0n };
      }
      const [from, to, amount] = [fromOf(p), toOf(p), amountOf(p)];
      balances.set(from, (balances.get(from) ?? 0n) - amount);
      balances.set(to, (balances.get(to) ?? 0n) + amount);
      chain.movements.push({ from, to, amount });
      chain.sponsor -= FAKE_FEE;
      return { ok: true, transaction: transaction as `0x${string}`, feeWei: FAKE_FEE };
    },
    fund: (address: string, amount: bigint) => balances.set(address.toLowerCase(), amount),
    approvePermit2: (address: string, amount: bigint) => allowances.set(address.toLowerCase(), amount),
    balance: (address: string) => balances.get(address.toLowerCase()) ?? 0n,
    /** The port as the facilitator types it (a class with private members: only these methods are used). */
    get adapter(): ChainAdapter {
      return chain as unknown as ChainAdapter;
    },
  };
  return chain;
}

/** Settlement receipts in memory, with the Redis store's rules: one holder per payload, a final result answers only its binding. */
export function fakeSettlements(): SettlementStore {
  const receipts = new Map<string, string>();
  const locks = new Set<string>();
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
  return settlements as unknown as SettlementStore;
}
