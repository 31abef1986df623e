/**
 * `exact` on EVM: an EIP-3009 `transferWithAuthorization` signed with EIP-712 over the token's
 * domain (name/version from the requirements' `extra`, chain id, token address), as @x402/evm's
 * client signs it. The signature is recovered for real; nothing is trusted from the payload.
 */
import { getAddress, type Hex } from 'viem';
import { recoverTypedDataSigner } from './recoverSigner.js';
import { Reason, reject, type Rejection } from './reasons.js';
import { isObject } from '../core/json.js';
import { chainIdOf, chainPaymentBase, isAddress, parseAmount, type CheckedPayment, type PaymentRequest, type PaymentScheme } from './payment.js';

/** EIP-3009's struct as the token contract hashes it: a signature over anything else moves no funds. */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The token's own domain: name and version cannot be read off the address, so sellers send them in requirements.extra. */
export function tokenDomain(name: string, version: string, chainId: number, token: string) {
  return { name, version, chainId, verifyingContract: token.toLowerCase() as Hex };
}

/** A payment must stay valid a few seconds past verification, long enough to be settled. */
export const VALIDITY_MARGIN_SECONDS = 6n;

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const lower = (address: string): Hex => address.toLowerCase() as Hex;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

export function checkExactPayment(request: PaymentRequest, nowSeconds: bigint): CheckedPayment | Rejection {
  const { requirements, schemePayload } = request;
  const authorization = schemePayload.authorization;
  const signature = schemePayload.signature;
  if (!isObject(authorization)) return reject(Reason.invalidPayload, 'payload.authorization must be an object');
  if (typeof signature !== 'string' || !SIGNATURE.test(signature)) {
    return reject(Reason.invalidPayload, 'payload.signature must be a 65-byte hex signature');
  }
  const { from, to, nonce } = authorization;
  const value = parseAmount(authorization.value);
  const validAfter = parseAmount(authorization.validAfter);
  const validBefore = parseAmount(authorization.validBefore);
  if (!isAddress(from) || !isAddress(to)) return reject(Reason.invalidPayload, 'authorization.from and .to must be addresses');
  if (value === undefined || validAfter === undefined || validBefore === undefined) {
    return reject(Reason.invalidPayload, 'authorization.value, .validAfter and .validBefore must be integer strings');
  }
  if (typeof nonce !== 'string' || !BYTES32.test(nonce)) return reject(Reason.invalidPayload, 'authorization.nonce must be 32 bytes of hex');
  const name = requirements.extra.name;
  const version = requirements.extra.version;
  if (typeof name !== 'string' || typeof version !== 'string') {
    return reject(Reason.exactMissingDomain, 'paymentRequirements.extra must carry the token EIP-712 name and version');
  }

  // The signature first: every refusal after it names a payer that provably signed (signals count
  // only those), and a forged payload costs one recovery whatever else is wrong with it.
  let signer: string | undefined;
  try {
    signer = recoverTypedDataSigner(
      {
        domain: tokenDomain(name, version, chainIdOf(requirements.network), requirements.asset),
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: 'TransferWithAuthorization',
        // Lower-case addresses: EIP-712 encodes the 20 bytes whatever the case, and checksums cost a hash each.
        message: { from: lower(from), to: lower(to), value, validAfter, validBefore, nonce: nonce as Hex },
      },
      signature,
    );
  } catch {
    signer = undefined;
  }
  if (signer === undefined) return reject(Reason.exactSignature, 'the signature cannot be recovered');
  if (signer !== lower(from)) return reject(Reason.exactSignature, 'the signature was not made by authorization.from');
  const payer = getAddress(from);

  // Value-free payments and payments to oneself carry no payer: they are evidence of nothing, not even of a rejection.
  if (value === 0n) return reject(Reason.exactZeroValue, 'authorization.value must be greater than 0: a zero-value payment pays for nothing');
  if (lower(to) !== lower(requirements.payTo as Hex)) {
    return reject(Reason.exactRecipientMismatch, `authorization.to ${to} is not payTo ${requirements.payTo}`, payer);
  }
  if (lower(from) === lower(to)) return reject(Reason.selfPayment, 'payTo is the payer: a payment to oneself moves nothing');
  if (value < requirements.amount) {
    return reject(Reason.exactValue, `authorization.value ${value} is below the required ${requirements.amount}`, payer);
  }
  if (validBefore < nowSeconds + VALIDITY_MARGIN_SECONDS) {
    return reject(Reason.exactValidBefore, `authorization expired (validBefore ${validBefore})`, payer);
  }
  if (validAfter > nowSeconds) return reject(Reason.exactValidAfter, `authorization not valid before ${validAfter}`, payer);
  const asset = requirements.asset.toLowerCase();
  return {
    payer,
    transfer: {
      network: requirements.network,
      asset,
      from: from.toLowerCase(),
      to: to.toLowerCase(),
      amount: value,
      nonceSpace: `eip3009:${asset}:${from.toLowerCase()}`,
      nonce: nonce.toLowerCase(),
      validBefore,
    },
  };
}

/** `exact` for x402 v1 and v2: the price, moved in full. */
export const exactScheme: PaymentScheme = {
  name: 'exact',
  x402Versions: [1, 2],
  supportedExtra: () => undefined,
  check: (request, { nowSeconds }) => checkExactPayment(request, nowSeconds),
  nonceUsed: (payer) => reject(Reason.exactNonceUsed, 'the authorization nonce was already used', payer),
  expired: (payer) => reject(Reason.exactValidBefore, 'authorization expired', payer),
  chainPayment: (request) => {
    // Only called on a request check() passed: the shapes below were validated there.
    const authorization = request.schemePayload.authorization as Record<string, string>;
    const text = (v: unknown) => String(v);
    return {
      kind: 'eip3009',
      ...chainPaymentBase(request),
      authorization: {
        from: authorization.from!,
        to: authorization.to!,
        value: text(authorization.value),
        validAfter: text(authorization.validAfter),
        validBefore: text(authorization.validBefore),
        nonce: authorization.nonce!,
      },
    };
  },
  chainFailures: { simulationFailed: Reason.exactSimulationFailed, transactionFailed: Reason.exactTransactionFailed },
  metered: false,
  // @x402/evm 2.27's exact/facilitator error constants (test/facilitator-reasons.test.ts checks them).
  v2ReasonNames: {
    [Reason.schemeMismatch]: 'invalid_exact_evm_scheme',
    [Reason.networkMismatch]: 'invalid_exact_evm_network_mismatch',
    [Reason.exactSignature]: 'invalid_exact_evm_signature',
    [Reason.exactRecipientMismatch]: 'invalid_exact_evm_recipient_mismatch',
    [Reason.exactValue]: 'invalid_exact_evm_payload_authorization_value_mismatch',
    [Reason.exactZeroValue]: 'invalid_exact_evm_authorization_value',
    [Reason.insufficientFunds]: 'invalid_exact_evm_insufficient_balance',
  },
};
