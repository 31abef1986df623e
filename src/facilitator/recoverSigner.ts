/**
 * EIP-712 signer recovery: viem builds the typed-data digest, libsecp256k1 (tiny-secp256k1, WASM)
 * recovers the public key. The curve step is the CPU cost of every /verify and /settle, and the
 * WASM build of libsecp256k1 does it several times faster than the pure-JS curve viem ships with
 * (numbers in docs/facilitator.md); the result is the same address viem's recoverTypedDataAddress gives.
 */
import { recover } from 'tiny-secp256k1';
import { hashTypedData, keccak256, type Hex, type TypedDataDefinition } from 'viem';

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

/** The checksum-less lower-case address that signed the typed data, or undefined when none can be recovered. */
export function recoverTypedDataSigner(typedData: TypedDataDefinition, signature: string): string | undefined {
  if (!SIGNATURE.test(signature)) return undefined;
  const digest = Buffer.from(hashTypedData(typedData).slice(2), 'hex');
  const bytes = Buffer.from(signature.slice(2), 'hex');
  const v = bytes[64]!;
  // Ethereum signatures carry v as 27/28; some signers emit the raw recovery id 0/1.
  const recoveryId = v >= 27 ? v - 27 : v;
  if (recoveryId !== 0 && recoveryId !== 1) return undefined;
  let publicKey: Uint8Array | null;
  try {
    publicKey = recover(digest, bytes.subarray(0, 64), recoveryId, false);
  } catch {
    return undefined;
  }
  if (!publicKey) return undefined;
  const hash = keccak256(publicKey.subarray(1) as Uint8Array, 'hex') as Hex;
  return `0x${hash.slice(-40)}`;
}
