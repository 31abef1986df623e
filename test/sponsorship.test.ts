/**
 * Issue 43, item 3: the fee sponsor cannot be drained by value that goes in circles. Fifty wallets
 * wash-trade in pairs (A pays B, B pays A, over and over) while honest buyers pay their sellers:
 * the washers are sponsored a few times each and then refused, the sponsor never runs dry, and
 * every honest payment settles. Short chains (A->B->C->A) are circles too and count as no demand;
 * budgets per payer and payee and a minimum value hold; /metrics shows the outflow per payer and
 * payee. Real Redis (the sponsorship scripts), the dev chain (the sponsor is a facilitator account
 * of the test's own, paying real gas), signed payments.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { LocalAccount } from 'viem';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { chainClient, fundBuyer, fundGas, sponsorWei } from './support/chainFunding.js';
import { decodeBase64Json, EXTENSION_RESPONSES_HEADER } from '../src/x402/wire.js';

/** What one settlement's transaction cost its sender in gas, from its receipt. */
async function gasPaid(hash: string): Promise<bigint> {
  const receipt = await chainClient.getTransactionReceipt({ hash: hash as `0x${string}` });
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

describe('the fee sponsor under wash trading (issue 43, item 3)', function () {
  this.timeout(180_000);
  // The fees are real gas now, so the budgets and the sponsor's size are set in fees measured on
  // this chain: FEE a settlement to a payee holding nothing yet (a new balance slot), REPEAT one to a
  // payee already paid (cheaper by that slot).
  let FEE: bigint;
  let REPEAT: bigint;
  before(async () => {
    const h = await startHarness();
    try {
      const payer = newWallet();
      const payee = newWallet().address;
      await fundBuyer(payer.address, 10_000n);
      const paid: bigint[] = [];
      for (let i = 0; i < 2; i += 1) {
        const res = (await request(h.app).post('/settle').send(await exactRequest(payer, requirements(payee, { amount: '1000' }))).expect(200)).body;
        assert.equal(res.success, true, JSON.stringify(res));
        paid.push(await gasPaid(res.transaction));
      }
      [FEE, REPEAT] = paid as [bigint, bigint];
      assert.ok(REPEAT < FEE, `${REPEAT} < ${FEE}`);
    } finally {
      await h.close();
    }
  });

  describe('fifty wallets sending value back and forth, then a line of fresh wallets, honest buyers beside them', () => {
    let h: Harness;
    let sponsor: string;
    before(async () => {
      // A small sponsor: a facilitator key of its own holding 700 fees; floor at 100 fees, so near it (the reserve) below 200.
      const key = generatePrivateKey();
      sponsor = privateKeyToAccount(key).address;
      await fundGas(sponsor, FEE * 700n);
      h = await startHarness({
        FACILITATOR_PRIVATE_KEY: key,
        SPONSOR_FLOOR_WEI: String(FEE * 100n),
        RATE_LIMIT_FACILITATOR: 'off',
        RATE_LIMIT_FACILITATOR_PAYER: 'off',
      });
    });
    after(async () => h?.close());

    const fund = async (wallet: LocalAccount, amount = 100_000n) => fundBuyer(wallet.address, amount);
    /** Every transaction the sponsor paid for: its spend must be exactly their gas. */
    const sent: string[] = [];
    const settle = async (payer: LocalAccount, payTo: string) => {
      const body = (await request(h.app).post('/settle').send(await exactRequest(payer, requirements(payTo, { amount: '1000' }))).expect(200)).body as { success: boolean; errorReason?: string; transaction: string };
      if (body.success) sent.push(body.transaction);
      return body;
    };
    const buyers = Array.from({ length: 10 }, () => newWallet());
    const sellers = buyers.map(() => newWallet().address);
    let honest = 0;
    /** One payment of each honest buyer to its seller: every one must settle, whatever the attackers do. */
    const honestRound = async (label: string) => {
      for (const [i, buyer] of buyers.entries()) {
        const paid = await settle(buyer, sellers[i]!);
        assert.equal(paid.success, true, `honest buyer ${i} (${label}): ${JSON.stringify(paid)}`);
        honest += 1;
      }
    };

    it('twenty-five pairs washing: each wallet is sponsored a few circles, then refused; every honest payment settles', async () => {
      await Promise.all(buyers.map((w) => fund(w)));
      const pairs = Array.from({ length: 25 }, () => [newWallet(), newWallet()] as const);
      await Promise.all(pairs.flat().map((w) => fund(w)));
      const start = await sponsorWei(sponsor);
      const wash = { settled: 0, declined: 0 };
      for (let round = 0; round < 8; round += 1) {
        const results = await Promise.all(pairs.flatMap(([a, b]) => [settle(a, b.address), settle(b, a.address)]));
        for (const r of results) {
          if (r.success) wash.settled += 1;
          else {
            assert.equal(r.errorReason, 'sponsorship_declined', JSON.stringify(r));
            wash.declined += 1;
          }
        }
        await honestRound(`wash round ${round}`);
      }
      // Each wallet: its first payment is no circle, then at most the allowance (3) of circles.
      assert.ok(wash.settled <= 50 * 4, `${wash.settled} wash settlements sponsored`);
      assert.ok(wash.declined >= 400 - 50 * 4, `${wash.declined} declined`);
      assert.equal(sent.length, wash.settled + 80);
      const fees = (await Promise.all(sent.map(gasPaid))).reduce((a, b) => a + b, 0n);
      assert.equal(start - (await sponsorWei(sponsor)), fees, 'the sponsor paid the gas of the sponsored ones only');
    });

    it('a line of fresh wallets handing one amount on (no circle) drains only down to the reserve; honest buyers go on', async () => {
      let holder = newWallet();
      await fund(holder, 10_000n);
      let hops = 0;
      let refused: { errorReason?: string; errorMessage?: string } | undefined;
      for (let i = 0; i < 1000 && !refused; i += 1) {
        const next = newWallet();
        const body = await exactRequest(holder, requirements(next.address, { amount: '1000' }));
        const res = (await request(h.app).post('/settle').send(body).expect(200)).body as { success: boolean; errorReason?: string; errorMessage?: string; transaction: string };
        if (!res.success) refused = res;
        else {
          hops += 1;
          holder = next;
        }
        if (i % 50 === 0) await honestRound(`line hop ${i}`);
      }
      assert.ok(refused, 'the line was stopped');
      assert.equal(refused.errorReason, 'sponsorship_declined');
      assert.match(refused.errorMessage!, /near its floor/);
      const left = await sponsorWei(sponsor);
      assert.ok(left < FEE * 200n && left > FEE * 150n, `stopped at the reserve: ${left / FEE} fees left after ${hops} hops`);
      // Near the floor, buyers paying with their own funds still settle; the sponsor never reaches its floor.
      await honestRound('near the floor');
      await honestRound('near the floor, again');
      assert.ok((await sponsorWei(sponsor)) > FEE * 100n);

      const metrics = (await request(h.app).get('/metrics').expect(200)).text;
      assert.match(metrics, /facilitator_sponsorship_declined_total\{reason="circular"\} [1-9]/);
      assert.match(metrics, /facilitator_sponsorship_declined_total\{reason="reserve"\} [1-9]/);
      const outflow = metrics.split('\n').filter((l) => l.startsWith('facilitator_sponsor_outflow_eth{'));
      assert.ok(outflow.some((l) => l.includes('role="payer"')) && outflow.some((l) => l.includes('role="payee"')), outflow.join('\n'));
      assert.ok(outflow.length <= 20, 'a bounded top per role, whatever the number of wallets');
      // The honest buyers paid most (one fee per payment each): they lead the payer outflow.
      assert.ok(buyers.some((b) => outflow.some((l) => l.includes(b.address.toLowerCase()))));
    });
  });

  describe('circles through a chain, budgets and the minimum', () => {
    let h: Harness;
    before(async () => {
      // Half a fee of slack each way, as gas prices drift: a payer's three payments to new payees
      // fit and a fourth does not; a payee's five payments (the first to its empty balance) fit, a sixth does not.
      h = await startHarness({
        SPONSOR_PAYER_BUDGET_WEI: String(FEE * 3n + FEE / 2n),
        SPONSOR_PAYEE_BUDGET_WEI: String(FEE + REPEAT * 4n + REPEAT / 2n),
        RATE_LIMIT_FACILITATOR: 'off',
        RATE_LIMIT_FACILITATOR_PAYER: 'off',
        SIGNALS_FLUSH_MS: '100',
      });
    });
    after(async () => h?.close());

    const funded = async () => {
      const wallet = newWallet();
      await fundBuyer(wallet.address, 100_000n);
      return wallet;
    };
    const settle = async (payer: LocalAccount, payTo: string, amount = '1000', url?: string) => {
      const body = await exactRequest(payer, requirements(payTo, { amount }), {}, url ? { url, description: '', mimeType: '' } : undefined);
      const withBazaar = { ...body, paymentPayload: { ...body.paymentPayload, extensions: { bazaar: { info: { input: { type: 'http', method: 'GET' } } } } } };
      const res = await request(h.app).post('/settle').send(withBazaar).expect(200);
      const header = res.headers[EXTENSION_RESPONSES_HEADER.toLowerCase()];
      return { ...(res.body as { success: boolean; errorReason?: string; errorMessage?: string }), bazaar: header ? (decodeBase64Json(String(header)) as { bazaar: { status: string; rejectedReason?: string } }).bazaar : undefined };
    };

    it('A->B->C->A returns value to A: sponsored within the allowance, and no demand for A\'s listing', async () => {
      const [a, b, c] = [await funded(), await funded(), await funded()];
      const url = 'https://chain-seller.example/api';
      const { id } = await h.container.catalog.writer.upsert({ type: 'http', resource: url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: a.address } }, { source: 'import' });
      await waitFor(async () => h.container.catalog.reader.get(id));
      assert.equal((await settle(a, b.address)).success, true);
      assert.equal((await settle(b, c.address)).success, true);
      const back = await settle(c, a.address, '1000', url);
      assert.equal(back.success, true, 'within the allowance: sponsored');
      assert.equal(back.bazaar?.status, 'rejected');
      assert.match(back.bazaar!.rejectedReason!, /returned to where it came from/);
      // An honest buyer of A's listing counts.
      const honest = await settle(await funded(), a.address, '1000', url);
      assert.equal(honest.bazaar?.status, 'success');
      await waitFor(async () => (await h.container.catalog.reader.get(id))?.signals.settleCount7d === 1);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await h.container.catalog.reader.get(id))?.signals.settleCount7d, 1);
    });

    it('a payer\'s and a payee\'s daily fee budgets hold; below the minimum nothing is sponsored', async () => {
      const payer = await funded();
      for (let i = 0; i < 3; i += 1) assert.equal((await settle(payer, newWallet().address)).success, true);
      const over = await settle(payer, newWallet().address);
      assert.equal(over.errorReason, 'sponsorship_declined');
      assert.match(over.errorMessage!, /this payer has used its daily share/);
      const payee = newWallet().address;
      for (let i = 0; i < 5; i += 1) assert.equal((await settle(await funded(), payee)).success, true);
      const crowded = await settle(await funded(), payee);
      assert.match(crowded.errorMessage!, /payments to this payTo have used their daily share/);
      const dust = await settle(await funded(), newWallet().address, '99');
      assert.equal(dust.errorReason, 'sponsorship_declined');
      assert.match(dust.errorMessage!, /below the 100 base units/);
    });
  });
});
