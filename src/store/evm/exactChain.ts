/**
 * `exact` (EIP-3009 transferWithAuthorization) on a chain (issue 44), through @x402/evm's own
 * facilitator mechanism (`ExactEvmScheme`): it verifies against chain state and simulates, sends
 * the transfer and checks the receipt's Transfer event. What it lacks and this module adds: the
 * send goes through TransactionSender (one sender per key, the journal written before the
 * broadcast), and a settlement whose authorization already has a journaled transaction is
 * reconciled against it (receipt, re-broadcast of the same bytes, or proof that it is dead)
 * instead of being verified and sent again. The chain's authorizationState is the truth: a
 * second transfer of one authorization reverts, so the journal only saves the gas and answers
 * with the first hash.
 */
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { FacilitatorEvmSigner } from '@x402/evm';
import { concat, encodeFunctionData, getAddress, type Hex, type TransactionReceipt } from 'viem';
import type { ChainClients, NetworkClient } from './chainClients.js';
import { JournalTaken, type TransactionSender, type TxJournal } from './sender.js';

/** A normalized EIP-3009 payment as the facilitator checked it offline. */
export interface Eip3009Payment {
  /** CAIP-2 */
  network: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
  authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
  signature: string;
}

export type ChainVerdict = { ok: true } | { ok: false; reason: string; message?: string };
export type ChainSettlement =
  | { ok: true; transaction: Hex; feeWei: bigint }
  | { ok: false; reason: string; message: string; transaction: string };

const ERC20_READS = [
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ type: 'uint256' }] },
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }],
    outputs: [{ type: 'bool' }],
  },
] as const;

/** Gas of one transferWithAuthorization on a warm token (about 60-85k); replaced by each receipt's real figure. */
const DEFAULT_SETTLE_GAS = 90_000n;
const PRICE_FRESH_MS = 2000;

/** A pending-settlement store that remembers nothing: the journal is the one record (x402 would keep its own per process). */
const NO_PENDING_STORE = { get: async () => undefined, set: async () => undefined, delete: async () => undefined };

export class ExactChain {
  private readonly gasUsed = new Map<string, bigint>();
  private readonly prices = new Map<string, { at: number; price: Promise<bigint> }>();

  constructor(
    private readonly clients: ChainClients,
    private readonly sender: TransactionSender,
    private readonly journal: TxJournal,
  ) {}

  get address(): string {
    return this.clients.account.address;
  }

  networks(): string[] {
    return [...this.clients.networks.keys()];
  }

  /** The payer's token balance and whether the authorization's nonce is used, read from the chain. */
  async state(payment: Eip3009Payment): Promise<{ balance: bigint; nonceUsed: boolean }> {
    const { client } = this.net(payment.network);
    const asset = getAddress(payment.asset);
    const from = getAddress(payment.authorization.from);
    const [balance, nonceUsed] = await Promise.all([
      client.readContract({ address: asset, abi: ERC20_READS, functionName: 'balanceOf', args: [from] }),
      client.readContract({ address: asset, abi: ERC20_READS, functionName: 'authorizationState', args: [from, payment.authorization.nonce as Hex] }),
    ]);
    return { balance, nonceUsed };
  }

  /** @x402/evm's verification on the chain: signature (EOA or ERC-1271), the asset is a contract, the transfer simulated. */
  async simulate(payment: Eip3009Payment): Promise<ChainVerdict> {
    const net = this.net(payment.network);
    const scheme = new ExactEvmScheme(this.signer(net), { pendingSettlementStore: NO_PENDING_STORE });
    const { payload, requirements } = wire(payment);
    const verdict = await scheme.verify(payload as never, requirements as never);
    return verdict.isValid ? { ok: true } : { ok: false, reason: verdict.invalidReason ?? 'invalid_exact_evm_transaction_simulation_failed', ...(verdict.invalidMessage ? { message: verdict.invalidMessage } : {}) };
  }

  /** The facilitator account's native balance: what pays every settlement's gas (the sponsor). */
  async sponsorBalance(network: string): Promise<bigint> {
    return this.net(network).client.getBalance({ address: this.clients.account.address });
  }

  /** What one settlement costs now, in wei: the last settlement's gas at the current gas price. */
  async feeEstimate(network: string, now = Date.now()): Promise<bigint> {
    let cached = this.prices.get(network);
    if (!cached || now - cached.at > PRICE_FRESH_MS) {
      cached = { at: now, price: this.net(network).client.getGasPrice() };
      this.prices.set(network, cached);
      cached.price.catch(() => this.prices.delete(network));
    }
    return (await cached.price) * (this.gasUsed.get(network) ?? DEFAULT_SETTLE_GAS);
  }

  /**
   * Settles once per authorization (`key`): a journaled transaction is reconciled, else @x402/evm
   * verifies and sends a new one through the journaling sender and waits for its receipt.
   */
  async settle(payment: Eip3009Payment, key: string): Promise<ChainSettlement> {
    const net = this.net(payment.network);
    const entry = await this.journal.get(key);
    if (entry) {
      const live = await this.sender.rebroadcast(net, entry).catch(() => true);
      if (live || (await this.minedOrKnown(net, entry.hash))) return this.run(net, payment, key, entry.hash);
      // Its nonce went to another transaction and it was never mined: it can never be. Start over,
      // unless the authorization was used meanwhile (then the chain refuses any new transfer).
      await this.journal.drop(key, entry.hash);
    }
    const outcome = await this.run(net, payment, key);
    return outcome;
  }

  private async run(net: NetworkClient, payment: Eip3009Payment, key: string, journaled?: Hex): Promise<ChainSettlement> {
    let receipt: TransactionReceipt | undefined;
    let taken: Hex | undefined;
    const signer = this.signer(net, {
      key,
      onReceipt: (r) => (receipt = r),
      onTaken: (hash) => (taken = hash),
    });
    const store = journaled ? { ...NO_PENDING_STORE, get: async () => journaled } : NO_PENDING_STORE;
    const scheme = new ExactEvmScheme(signer, { pendingSettlementStore: store });
    const { payload, requirements } = wire(payment);
    const result = await scheme.settle(payload as never, requirements as never);
    // Another settlement of this authorization journaled its transaction first: answer with that one.
    if (taken && !journaled) return this.run(net, payment, key, taken);
    if (result.success) {
      const r = receipt as TransactionReceipt | undefined;
      if (r) this.gasUsed.set(net.network, r.gasUsed);
      const feeWei = r ? r.gasUsed * r.effectiveGasPrice : 0n;
      return { ok: true, transaction: result.transaction as Hex, feeWei };
    }
    return { ok: false, reason: result.errorReason ?? 'invalid_exact_evm_transaction_failed', message: result.errorMessage ?? result.errorReason ?? 'the transfer failed', transaction: result.transaction };
  }

  /** The transaction journaled for an authorization key, if any. */
  async journaled(key: string): Promise<string | undefined> {
    return (await this.journal.get(key))?.hash;
  }

  private async minedOrKnown(net: NetworkClient, hash: Hex): Promise<boolean> {
    const receipt = await net.client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt) return true;
    return (await net.client.getTransaction({ hash }).catch(() => undefined)) !== undefined;
  }

  private net(network: string): NetworkClient {
    const net = this.clients.networks.get(network);
    if (!net) throw new Error(`no chain is configured for ${network}`);
    return net;
  }

  /** @x402/evm's signer over the public client; writes go through the journaling sender under `send.key`. */
  private signer(net: NetworkClient, send?: { key: string; onReceipt: (r: TransactionReceipt) => void; onTaken: (hash: Hex) => void }): FacilitatorEvmSigner {
    const { client } = net;
    const { confirmations, receiptTimeoutMs } = this.clients;
    return {
      getAddresses: () => [this.clients.account.address],
      readContract: (args) => client.readContract(args as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      getCode: (args) => client.getCode(args),
      writeContract: async (args) => {
        if (!send) throw new Error('verification sends nothing');
        const data = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args } as never);
        try {
          const { hash } = await this.sender.send(net, { to: args.address, data: args.dataSuffix ? concat([data, args.dataSuffix]) : data }, send.key);
          return hash;
        } catch (err) {
          if (err instanceof JournalTaken) send.onTaken(err.entry.hash);
          throw err;
        }
      },
      // Only an ERC-6492 wallet deployment sends a raw call, and no factory is allowed.
      sendTransaction: () => Promise.reject(new Error('smart-wallet deployment is not enabled')),
      waitForTransactionReceipt: async ({ hash }) => {
        const receipt = await client.waitForTransactionReceipt({ hash, confirmations, timeout: receiptTimeoutMs });
        send?.onReceipt(receipt);
        return receipt;
      },
    };
  }
}

/** The v2 wire form @x402/evm's scheme reads; the authorized value is the amount (the facilitator already checked it covers the price). */
function wire(payment: Eip3009Payment) {
  const accepted = {
    scheme: 'exact',
    network: payment.network,
    asset: payment.asset,
    payTo: payment.payTo,
    amount: payment.authorization.value,
    maxTimeoutSeconds: payment.maxTimeoutSeconds,
    extra: payment.extra,
  };
  return { payload: { x402Version: 2, accepted, payload: { authorization: payment.authorization, signature: payment.signature } }, requirements: accepted };
}
