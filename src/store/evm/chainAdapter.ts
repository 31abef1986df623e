/**
 * Payments settled on a chain (issue 44), each through @x402/evm's own facilitator mechanism for
 * its kind (paymentKinds.ts: `exact`'s EIP-3009 `ExactEvmScheme`, `upto`'s Permit2 `UptoEvmScheme`):
 * they verify against chain state and simulate, send the transfer and check the receipt. What
 * they lack and this module adds, the same for every kind: the send goes through
 * TransactionSender (one sender per key, the journal written before the broadcast), and a
 * settlement whose authorization already has a journaled transaction is reconciled against it
 * (receipt, re-broadcast of the same bytes, or proof that it is dead) instead of being verified
 * and sent again. The chain is the truth (EIP-3009's authorizationState, Permit2's nonce bitmap):
 * a second transfer of one authorization reverts, so the journal only saves the gas and answers
 * with the first hash.
 */
import { eip3009ABI, type FacilitatorEvmSigner } from '@x402/evm';
import { concat, encodeFunctionData, getAddress, keccak256, type Hex, type TransactionReceipt } from 'viem';
import type { ChainClients, NetworkClient } from './chainClients.js';
import { kindOf, type ChainPayment, type ChainState } from './paymentKinds.js';
import { JournalTaken, type JournalEntry, type TransactionSender, type TxJournal } from './sender.js';

export type { ChainPayment, ChainState, Eip3009Payment, Permit2UptoPayment } from './paymentKinds.js';

export type ChainVerdict = { ok: true } | { ok: false; reason: string; message?: string };
/**
 * `feeWei`: the gas the facilitator's account paid for the settlement's transaction, also when it
 * was mined and reverted (0 when nothing was mined: refused before sending, or still pending).
 */
export type ChainSettlement =
  | { ok: true; transaction: Hex; feeWei: bigint }
  | { ok: false; reason: string; message: string; transaction: string; feeWei: bigint };

const PRICE_FRESH_MS = 2000;

/** A pending-settlement store that remembers nothing: the journal is the one record (x402 would keep its own per process). */
const NO_PENDING_STORE = { get: async () => undefined, set: async () => undefined, delete: async () => undefined };

export class ChainAdapter {
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

  /** The chain state /verify reads for the payment's kind (balance, nonce, Permit2 allowance). */
  async state(payment: ChainPayment): Promise<ChainState> {
    return kindOf(payment).state(this.net(payment.network).client, payment);
  }

  /** An owner's balance of a token. */
  async tokenBalance(network: string, asset: string, owner: string): Promise<bigint> {
    return this.net(network).client.readContract({ address: getAddress(asset), abi: eip3009ABI, functionName: 'balanceOf', args: [getAddress(owner)] });
  }

  /** The journal key of the payment's authorization: the chain's own identity of it. */
  key(payment: ChainPayment): string {
    return kindOf(payment).key(payment);
  }

  /** @x402/evm's verification on the chain: signature (EOA or ERC-1271), the asset is a contract, the transfer simulated. */
  async simulate(payment: ChainPayment): Promise<ChainVerdict> {
    const net = this.net(payment.network);
    const kind = kindOf(payment);
    const { payload, requirements } = kind.wire(payment, 'verify');
    const verdict = await kind.mechanism(this.signer(net), NO_PENDING_STORE).verify(payload as never, requirements as never);
    return verdict.isValid ? { ok: true } : { ok: false, reason: verdict.invalidReason ?? 'simulation_failed', ...(verdict.invalidMessage ? { message: verdict.invalidMessage } : {}) };
  }

  /** The facilitator account's native balance: what pays every settlement's gas (the sponsor). */
  async sponsorBalance(network: string): Promise<bigint> {
    return this.net(network).client.getBalance({ address: this.clients.account.address });
  }

  /** What one settlement of the payment's kind costs now, in wei: the last such settlement's gas at the current gas price. */
  async feeEstimate(payment: ChainPayment, now = Date.now()): Promise<bigint> {
    const network = payment.network;
    let cached = this.prices.get(network);
    if (!cached || now - cached.at > PRICE_FRESH_MS) {
      cached = { at: now, price: this.net(network).client.getGasPrice() };
      this.prices.set(network, cached);
      cached.price.catch(() => this.prices.delete(network));
    }
    return (await cached.price) * (this.gasUsed.get(`${network}:${payment.kind}`) ?? kindOf(payment).defaultGas);
  }

  /**
   * Settles once per authorization (`key`): a journaled transaction is reconciled, else @x402/evm
   * verifies and sends a new one through the journaling sender and waits for its receipt.
   */
  async settle(payment: ChainPayment): Promise<ChainSettlement> {
    const net = this.net(payment.network);
    const key = this.key(payment);
    const entry = await this.journal.get(key);
    if (entry && !sameAuthorization(entry, payment)) return nonceUsed(payment);
    if (entry) {
      const live = await this.sender.rebroadcast(net, entry).catch(() => true);
      if (live || (await this.minedOrKnown(net, entry.hash))) return this.run(net, payment, key, entry.hash);
      // Its nonce went to another transaction and it was never mined: it can never be. Start over,
      // unless the authorization was used meanwhile (then the chain refuses any new transfer).
      await this.journal.drop(key, entry.hash);
    }
    return this.run(net, payment, key);
  }

  private async run(net: NetworkClient, payment: ChainPayment, key: string, journaled?: Hex): Promise<ChainSettlement> {
    let receipt: TransactionReceipt | undefined;
    let taken: Hex | undefined;
    let other = false;
    const signer = this.signer(net, {
      key,
      payment: fingerprint(payment),
      onReceipt: (r) => (receipt = r),
      onTaken: (entry) => {
        taken = entry.hash;
        other = !sameAuthorization(entry, payment);
      },
    });
    const store = journaled ? { ...NO_PENDING_STORE, get: async () => journaled } : NO_PENDING_STORE;
    const kind = kindOf(payment);
    const { payload, requirements } = kind.wire(payment, 'settle');
    const result = await kind.mechanism(signer, store).settle(payload as never, requirements as never);
    // Another settlement journaled its transaction first: of this authorization, answer with that
    // one; of another one under the same nonce, this one can never be settled.
    if (other) return nonceUsed(payment);
    if (taken && !journaled) return this.run(net, payment, key, taken);
    // A mined transaction cost its gas whether it succeeded or reverted.
    const r = receipt as TransactionReceipt | undefined;
    if (r?.status === 'success') this.gasUsed.set(`${net.network}:${payment.kind}`, r.gasUsed);
    const feeWei = r ? r.gasUsed * r.effectiveGasPrice : 0n;
    // A mined revert used nothing of the authorization and can never be mined again: forgotten, so a
    // retry verifies afresh (and its gas is charged once, by the attempt that saw it).
    if (r && r.status !== 'success') await this.journal.drop(key, r.transactionHash);
    if (result.success) return { ok: true, transaction: result.transaction as Hex, feeWei };
    return { ok: false, reason: result.errorReason ?? 'transaction_failed', message: result.errorMessage ?? result.errorReason ?? 'the transfer failed', transaction: result.transaction, feeWei };
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
  private signer(net: NetworkClient, send?: { key: string; payment: Hex; onReceipt: (r: TransactionReceipt) => void; onTaken: (entry: JournalEntry) => void }): FacilitatorEvmSigner {
    const { client } = net;
    const { confirmations, receiptTimeoutMs } = this.clients;
    return {
      getAddresses: () => [this.clients.account.address],
      // Calls are made from the facilitator's address, as its transaction will be: the upto proxy only lets the witness's facilitator settle.
      readContract: (args) => client.readContract({ account: this.clients.account.address, ...args } as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      getCode: (args) => client.getCode(args),
      writeContract: async (args) => {
        if (!send) throw new Error('verification sends nothing');
        const data = encodeFunctionData({ abi: args.abi, functionName: args.functionName, args: args.args } as never);
        try {
          const { hash } = await this.sender.send(net, { to: args.address, data: args.dataSuffix ? concat([data, args.dataSuffix]) : data }, send.key, send.payment);
          return hash;
        } catch (err) {
          if (err instanceof JournalTaken) send.onTaken(err.entry);
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

/** Which signed authorization a payment is: its signature, hashed (what the journal entry records). */
function fingerprint(payment: ChainPayment): Hex {
  return keccak256(payment.signature as Hex);
}

/** The journaled transaction settles this payment's authorization (entries from before the fingerprint: assumed so). */
function sameAuthorization(entry: JournalEntry, payment: ChainPayment): boolean {
  return entry.payment === undefined || entry.payment === fingerprint(payment);
}

/** Another authorization under this nonce has a transaction: this one can never be settled. */
function nonceUsed(payment: ChainPayment): ChainSettlement {
  return { ok: false, reason: kindOf(payment).nonceUsedReason, message: 'another authorization with this nonce was already settled', transaction: '', feeWei: 0n };
}
