/**
 * Builds x402 payment payloads the way @x402/evm's clients sign them (EIP-3009 for `exact`, the
 * Permit2 witness for `upto`), with every field overridable so tests can produce each rejection.
 */
import { randomBytes } from 'node:crypto';
import { getAddress, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tokenDomain, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/facilitator/exactScheme.js';
import { permit2Domain, UPTO_PERMIT2_PROXY_ADDRESS, UPTO_WITNESS_TYPES } from '../../src/facilitator/uptoScheme.js';
import type { PaymentRequirements } from '../../src/x402/wire.js';

export const NETWORK = 'eip155:84532';
export const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
/**
 * The facilitator the harness runs: the address of the dev chain's facilitator key (Hardhat's account
 * #1; test/support/chainFunding.ts checks they agree), the one an upto witness names. A literal, so
 * that the unit tests importing this file load nothing of the chain.
 */
export const FACILITATOR_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export function newWallet(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export type RequirementsV2 = PaymentRequirements;

export function requirements(payTo: string, overrides: Partial<RequirementsV2> = {}): RequirementsV2 {
  return {
    scheme: 'exact',
    network: NETWORK,
    asset: USDC,
    amount: '1000',
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: 'USDC', version: '2' },
    ...overrides,
  };
}

const now = () => Math.floor(Date.now() / 1000);

export interface ExactOptions {
  to?: string;
  value?: string;
  validAfter?: string;
  validBefore?: string;
  nonce?: Hex;
  chainId?: number;
  /** Signs with this account while claiming `from` = the payer (a forged signature). */
  signer?: LocalAccount;
}

export async function exactAuthorization(payer: LocalAccount, req: RequirementsV2, o: ExactOptions = {}) {
  const authorization = {
    from: payer.address,
    to: getAddress(o.to ?? req.payTo),
    value: o.value ?? req.amount,
    validAfter: o.validAfter ?? '0',
    validBefore: o.validBefore ?? String(now() + req.maxTimeoutSeconds),
    nonce: o.nonce ?? (`0x${randomBytes(32).toString('hex')}` as Hex),
  };
  const signature = await (o.signer ?? payer).signTypedData({
    domain: tokenDomain('USDC', '2', o.chainId ?? 84532, req.asset),
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { authorization, signature };
}

export const RESOURCE = { url: 'http://seller.test/weather', description: 'Weather by city', mimeType: 'application/json' };

/** A v2 verify/settle body for `exact`. */
export async function exactRequest(payer: LocalAccount, req: RequirementsV2, o: ExactOptions = {}, resource = RESOURCE) {
  const payload = await exactAuthorization(payer, req, o);
  return { x402Version: 2, paymentPayload: { x402Version: 2, resource, accepted: req, payload }, paymentRequirements: req };
}

export interface UptoOptions {
  ceiling?: string;
  to?: string;
  facilitator?: string;
  spender?: string;
  deadline?: string;
  validAfter?: string;
  nonce?: string;
}

export async function uptoRequest(payer: LocalAccount, req: RequirementsV2, o: UptoOptions = {}, resource = RESOURCE) {
  const permit2Authorization = {
    from: payer.address,
    permitted: { token: getAddress(req.asset), amount: o.ceiling ?? req.amount },
    spender: getAddress(o.spender ?? UPTO_PERMIT2_PROXY_ADDRESS),
    nonce: o.nonce ?? BigInt(`0x${randomBytes(31).toString('hex')}`).toString(),
    deadline: o.deadline ?? String(now() + req.maxTimeoutSeconds),
    witness: { to: getAddress(o.to ?? req.payTo), facilitator: getAddress(o.facilitator ?? FACILITATOR_ADDRESS), validAfter: o.validAfter ?? '0' },
  };
  const signature = await payer.signTypedData({
    domain: permit2Domain(84532),
    types: UPTO_WITNESS_TYPES,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: permit2Authorization.permitted.token, amount: BigInt(permit2Authorization.permitted.amount) },
      spender: permit2Authorization.spender,
      nonce: BigInt(permit2Authorization.nonce),
      deadline: BigInt(permit2Authorization.deadline),
      witness: { ...permit2Authorization.witness, validAfter: BigInt(permit2Authorization.witness.validAfter) },
    },
  });
  const accepted = { ...req, scheme: 'upto' };
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, resource, accepted, payload: { signature, permit2Authorization } },
    paymentRequirements: accepted,
  };
}

/** The settlement a seller's answer carries (PAYMENT-RESPONSE in v2, X-PAYMENT-RESPONSE in v1: base64 JSON). */
export function paymentResponse(res: Response): { success: boolean; transaction: string } {
  const header = res.headers.get('payment-response') ?? res.headers.get('x-payment-response');
  if (!header) throw new Error(`the seller answered ${res.status} without a settlement header`);
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { success: boolean; transaction: string };
}
