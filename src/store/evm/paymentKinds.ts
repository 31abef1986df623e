/**
 * The kinds of payment the chain adapter (chainAdapter.ts) settles (issue 44), one entry per
 * on-chain authorization form: what identifies the authorization on chain (the journal key, so
 * every gateway's retry finds the one transaction), what state /verify reads before simulating,
 * the wire form @x402/evm's facilitator mechanism takes, and which mechanism it is. Adding a kind
 * is an entry here; the sending, journaling and reconciling stay in chainAdapter.ts and sender.ts.
 */
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { eip3009ABI, erc20AllowanceAbi, PERMIT2_ADDRESS, type FacilitatorEvmSigner } from '@x402/evm';
import type { PendingSettlementStore } from '@x402/core/facilitator';
import type { SchemeNetworkFacilitator } from '@x402/core/types';
import { getAddress, type Hex, type PublicClient } from 'viem';

interface PaymentBase {
  /** CAIP-2 */
  network: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
  signature: string;
}

/** `exact`: an EIP-3009 transferWithAuthorization as the facilitator checked it offline. */
export interface Eip3009Payment extends PaymentBase {
  kind: 'eip3009';
  authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
}

/** `upto`: a Permit2 PermitWitnessTransferFrom signed for a ceiling; `amount` is what a settle charges (<= the ceiling). */
export interface Permit2UptoPayment extends PaymentBase {
  kind: 'permit2-upto';
  amount: string;
  permit2Authorization: {
    from: string;
    spender: string;
    nonce: string;
    deadline: string;
    permitted: { token: string; amount: string };
    witness: { to: string; facilitator: string; validAfter: string };
  };
}

export type ChainPayment = Eip3009Payment | Permit2UptoPayment;

/** What /verify reads from the chain before @x402/evm simulates: the payer's token balance, its nonce, Permit2's allowance. */
export interface ChainState {
  balance: bigint;
  nonceUsed: boolean;
  /** The token allowance the payer gave Permit2 (Permit2 kinds only). */
  allowance?: bigint;
}

const PERMIT2_NONCE_BITMAP = [
  {
    type: 'function',
    name: 'nonceBitmap',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }, { name: 'wordPos', type: 'uint256' }],
    outputs: [{ type: 'uint256' }],
  },
] as const;

export interface PaymentKind<P extends ChainPayment> {
  /** The chain's own identity of the authorization: one journal entry, one transaction, per key. */
  key(payment: P): string;
  state(client: PublicClient, payment: P): Promise<ChainState>;
  /** The v2 payload and requirements @x402/evm's mechanism reads, at /verify or at /settle. */
  wire(payment: P, mode: 'verify' | 'settle'): { payload: unknown; requirements: unknown };
  mechanism(signer: FacilitatorEvmSigner, store: PendingSettlementStore): SchemeNetworkFacilitator;
  /** The gas of one settlement before a receipt told the real figure (a warm token, a used Permit2). */
  defaultGas: bigint;
  /** @x402/evm's code for an authorization whose nonce is already used (ChainRail maps it to the scheme's refusal). */
  nonceUsedReason: string;
}

/**
 * An address as @x402/evm takes it: checksummed. The service compares the 20 bytes whatever their
 * case, and a payload's addresses in another case (all upper, a wrong checksum) name the same
 * account, so they are normalized here rather than refused as invalid by viem there.
 */
const checksummed = (address: string) => getAddress(address.toLowerCase());

function accepted(scheme: string, payment: ChainPayment, amount: string) {
  const { network, asset, payTo, maxTimeoutSeconds, extra } = payment;
  return { scheme, network, asset: checksummed(asset), payTo: checksummed(payTo), amount, maxTimeoutSeconds, extra };
}

const eip3009: PaymentKind<Eip3009Payment> = {
  key: (p) => `${p.network}:eip3009:${p.asset.toLowerCase()}:${p.authorization.from.toLowerCase()}:${p.authorization.nonce.toLowerCase()}`,
  async state(client, p) {
    const asset = getAddress(p.asset);
    const from = getAddress(p.authorization.from);
    const [balance, nonceUsed] = await Promise.all([
      client.readContract({ address: asset, abi: eip3009ABI, functionName: 'balanceOf', args: [from] }),
      client.readContract({ address: asset, abi: eip3009ABI, functionName: 'authorizationState', args: [from, p.authorization.nonce as Hex] }),
    ]);
    return { balance, nonceUsed };
  },
  // The authorized value is the amount: the facilitator already checked it covers the price.
  wire: (p) => {
    const requirements = accepted('exact', p, p.authorization.value);
    const authorization = { ...p.authorization, from: checksummed(p.authorization.from), to: checksummed(p.authorization.to) };
    return { payload: { x402Version: 2, accepted: requirements, payload: { authorization, signature: p.signature } }, requirements };
  },
  mechanism: (signer, store) => new ExactEvmScheme(signer, { pendingSettlementStore: store }),
  // transferWithAuthorization on a warm token: about 60-85k.
  defaultGas: 90_000n,
  nonceUsedReason: 'invalid_exact_evm_nonce_already_used',
};

/** Permit2 keeps a bitmap of used nonces per owner, any token: word nonce >> 8, bit nonce & 255. */
function nonceSlot(nonce: string): { word: bigint; bit: bigint } {
  const n = BigInt(nonce);
  return { word: n >> 8n, bit: n & 255n };
}

const permit2Upto: PaymentKind<Permit2UptoPayment> = {
  key: (p) => {
    const { word, bit } = nonceSlot(p.permit2Authorization.nonce);
    return `${p.network}:permit2:${p.permit2Authorization.from.toLowerCase()}:${word}:${bit}`;
  },
  async state(client, p) {
    const asset = getAddress(p.asset);
    const from = getAddress(p.permit2Authorization.from);
    const { word, bit } = nonceSlot(p.permit2Authorization.nonce);
    const [balance, allowance, bitmap] = await Promise.all([
      client.readContract({ address: asset, abi: eip3009ABI, functionName: 'balanceOf', args: [from] }),
      client.readContract({ address: asset, abi: erc20AllowanceAbi, functionName: 'allowance', args: [from, PERMIT2_ADDRESS] }),
      client.readContract({ address: PERMIT2_ADDRESS, abi: PERMIT2_NONCE_BITMAP, functionName: 'nonceBitmap', args: [from, word] }),
    ]);
    return { balance, allowance, nonceUsed: ((bitmap >> bit) & 1n) === 1n };
  },
  // @x402/evm verifies a permit against its whole ceiling (its own settle does the same before charging `amount`).
  wire: (p, mode) => {
    const requirements = accepted('upto', p, mode === 'verify' ? p.permit2Authorization.permitted.amount : p.amount);
    const permit = p.permit2Authorization;
    const permit2Authorization = {
      ...permit,
      from: checksummed(permit.from),
      spender: checksummed(permit.spender),
      permitted: { ...permit.permitted, token: checksummed(permit.permitted.token) },
      witness: { ...permit.witness, to: checksummed(permit.witness.to), facilitator: checksummed(permit.witness.facilitator) },
    };
    const payload = { x402Version: 2, accepted: { ...requirements, amount: permit.permitted.amount }, payload: { permit2Authorization, signature: p.signature } };
    return { payload, requirements };
  },
  mechanism: (signer, store) => new UptoEvmScheme(signer, { pendingSettlementStore: store }),
  // The proxy's settle through Permit2's permitWitnessTransferFrom: about 70-100k.
  defaultGas: 110_000n,
  nonceUsedReason: 'permit2_invalid_nonce',
};

const KINDS: { [K in ChainPayment['kind']]: PaymentKind<Extract<ChainPayment, { kind: K }>> } = { eip3009, 'permit2-upto': permit2Upto };

export function kindOf<P extends ChainPayment>(payment: P): PaymentKind<P> {
  return KINDS[payment.kind] as unknown as PaymentKind<P>;
}
