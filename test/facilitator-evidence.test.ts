/**
 * Issue 9, the facilitator side: a listing or a signal rests on evidence nobody can fake for free
 * (docs/facilitator.md "Evidence before listing"). Each defect of the issue is reproduced the way
 * an outsider would try it: a fresh wallet, signing what it likes for a resource of its choosing.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId, mcpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';
import { assertMined, fundBuyer, sponsorWei, usdcBalance } from './support/chainFunding.js';

const VICTIM = { url: 'https://api.victim-bank.example/v1/transfer', description: 'Transfer money', mimeType: 'application/json', serviceName: 'Victim Bank' };

describe('facilitator: evidence before listing, signals and sponsor spend (issue 9)', function () {
  this.timeout(30_000);
  let h: Harness;
  before(async () => {
    h = await startHarness({ SIGNALS_FLUSH_MS: '100', PROBE_ALLOW: '' });
  });
  after(async () => h.close());

  const post = async (path: string, body: unknown) => (await request(h.app).post(path).send(body as object).expect(200)).body;
  // The fee sponsor is the facilitator's account on the dev chain: what it spent is gas paid there.
  const sponsor = () => sponsorWei();
  // upto still settles on the Redis test ledger (issue 44: the "upto" step moves it on chain).
  const fundLedger = (address: string, amount: bigint) => h.container.facilitator.ledger.fund(NETWORK, USDC, address, amount);
  const ledgerBalance = (address: string) => h.container.facilitator.ledger.balance(NETWORK, USDC, address);
  const signals = async (id: string) => (await h.container.signals.counters.read([id])).get(id)!;
  /** Every catalog write queued so far has been applied: the write queue is ordered, so a marker written last proves it. */
  const appliedSoFar = async () => {
    await h.container.facilitator.cataloger.idle();
    const marker = `http://marker.test/${Date.now()}${Math.random().toString(36).slice(2)}`;
    const { id } = await h.container.catalog.writer.upsert({ type: 'http', resource: marker, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1' } }, { source: 'import' });
    await waitFor(async () => h.container.catalog.reader.get(id));
  };
  const mcpBody = async (payer: ReturnType<typeof newWallet>, payTo: string, uri: string, tool: string, amount = '1000') => {
    const body = await exactRequest(payer, requirements(payTo, { amount }), {}, { url: uri, description: 'Squatted tool', mimeType: 'application/json' });
    const paymentPayload = {
      ...body.paymentPayload,
      extensions: { bazaar: { info: { input: { type: 'mcp', toolName: tool, description: 'Not yours', inputSchema: { type: 'object' } } } } },
    };
    return { ...body, paymentPayload };
  };

  it('defect 1: zero-value verifies from an unfunded wallet paying itself are refused and list nothing', async () => {
    await h.container.publishing.tokens.issue(['tools.example']);
    const attacker = newWallet();
    const self = requirements(attacker.address, { amount: '0' });
    const attempts = [
      await exactRequest(attacker, self, {}, VICTIM),
      await exactRequest(attacker, self, {}, { url: 'http://127.0.0.1:6379/flushall', description: 'Redis', mimeType: '' }),
      await mcpBody(attacker, attacker.address, 'mcp://tools.example/squatted_tool', 'squatted_tool', '0'),
    ];
    for (const body of attempts) {
      const res = await post('/verify', body);
      assert.equal(res.isValid, false);
      assert.equal(res.invalidReason, 'invalid_exact_evm_authorization_value');
    }
    // Zero value to someone else, and value to oneself: refused too.
    const toOther = await post('/verify', await exactRequest(attacker, requirements(newWallet().address, { amount: '0' }), {}, VICTIM));
    assert.equal(toOther.invalidReason, 'invalid_exact_evm_authorization_value');
    const selfPaid = await post('/verify', await exactRequest(attacker, requirements(attacker.address, { amount: '5' }), {}, VICTIM));
    assert.equal(selfPaid.invalidReason, 'invalid_self_payment');
    await appliedSoFar();
    for (const id of [httpListingId(VICTIM.url), httpListingId('http://127.0.0.1:6379/flushall'), mcpListingId('mcp://tools.example/squatted_tool', 'squatted_tool')]) {
      assert.equal(await h.container.catalog.reader.get(id), undefined, id);
      assert.equal((await signals(id)).rejectionRate7d, 0, 'an unfunded wallet moves no rejection rate');
    }
  });

  it('a valid /verify alone writes no listing: it queues a probe of the resource, which lists only on its own 402', async () => {
    const payer = newWallet();
    await fundBuyer(payer.address, 10_000n);
    const resource = { url: 'https://verified-only.example/quote', description: 'Attacker text', mimeType: '', serviceName: 'Attacker title' };
    assert.equal((await post('/verify', await exactRequest(payer, requirements(newWallet().address), {}, resource))).isValid, true);
    const id = httpListingId(resource.url);
    const probe = await waitFor(async () => h.container.probing.store.get(id));
    assert.equal(probe.resource, resource.url);
    await appliedSoFar();
    assert.equal(await h.container.catalog.reader.get(id), undefined);
  });

  it('defect 2: zero-amount settles cost the sponsor nothing, move no signal and list nothing', async () => {
    const attacker = newWallet();
    const before = await sponsor();
    const id = httpListingId(VICTIM.url);
    for (let i = 0; i < 20; i += 1) {
      const res = await post('/settle', await exactRequest(attacker, requirements(attacker.address, { amount: '0' }), {}, VICTIM));
      assert.equal(res.success, false);
      assert.equal(res.errorReason, 'invalid_exact_evm_authorization_value');
    }
    // upto: a zero ceiling authorizes nothing; a settle of 0 under a real ceiling moves nothing (as @x402/evm answers it).
    const zeroCeiling = await uptoRequest(attacker, requirements(newWallet().address, { amount: '0' }), { ceiling: '0' }, VICTIM);
    assert.equal((await post('/verify', zeroCeiling)).invalidReason, 'permit2_invalid_amount');
    assert.equal((await post('/settle', zeroCeiling)).errorReason, 'permit2_invalid_amount');
    const buyer = newWallet();
    await fundLedger(buyer.address, 5000n);
    const ceiling = await uptoRequest(buyer, requirements(newWallet().address, { amount: '5000' }), {}, VICTIM);
    const nothingUsed = { ...ceiling, paymentRequirements: { ...ceiling.paymentRequirements, amount: '0' } };
    assert.deepEqual(await post('/settle', nothingUsed), { success: true, payer: buyer.address, transaction: '', network: NETWORK, amount: '0' });
    assert.equal(await ledgerBalance(buyer.address), 5000n);

    assert.equal(await sponsor(), before, 'no fee paid');
    await appliedSoFar();
    assert.equal(await h.container.catalog.reader.get(id), undefined);
    assert.deepEqual(await signals(id), { settleCount7d: 0, rejectionRate7d: 0 });
  });

  it('self-payment: a funded wallet paying itself is refused, moves nothing and costs the sponsor nothing', async () => {
    const wallet = newWallet();
    await fundBuyer(wallet.address, 10_000n);
    await fundLedger(wallet.address, 10_000n);
    const before = await sponsor();
    const exact = await post('/settle', await exactRequest(wallet, requirements(wallet.address, { amount: '100' }), {}, VICTIM));
    assert.equal(exact.errorReason, 'invalid_self_payment');
    const upto = await post('/settle', await uptoRequest(wallet, requirements(wallet.address.toLowerCase(), { amount: '100' }), {}, VICTIM));
    assert.equal(upto.errorReason, 'invalid_self_payment');
    assert.equal(await sponsor(), before);
    assert.equal(await usdcBalance(wallet.address), 10_000n);
    assert.equal(await ledgerBalance(wallet.address), 10_000n);
    await appliedSoFar();
    assert.equal(await h.container.catalog.reader.get(httpListingId(VICTIM.url)), undefined);
  });

  it('a real settlement lists nothing by itself (issue 43): a public URL gets a probe, a private one a refused probe, a tool nothing', async () => {
    await h.container.publishing.tokens.issue(['bound-tools.example']);
    const payer = newWallet();
    await fundBuyer(payer.address, 100_000n);
    const seller = newWallet().address;
    const settle = async (body: unknown) => assert.equal((await post('/settle', body)).success, true);
    const named = { url: 'https://paid.example/report', description: 'Daily report', mimeType: 'application/json' };
    await settle(await exactRequest(payer, requirements(seller), {}, named));
    const refused = ['http://127.0.0.1:6379/x', 'http://10.1.2.3/admin', 'http://[::1]:8080/x', 'http://169.254.169.254/latest/meta-data', 'http://localhost:9200/_cat'];
    for (const url of refused) await settle(await exactRequest(payer, requirements(seller), {}, { url, description: 'inward', mimeType: '' }));
    await settle(await mcpBody(payer, seller, 'mcp://bound-tools.example/squatted_tool', 'squatted_tool'));
    await settle(await mcpBody(payer, seller, 'mcp://free-tools.example/open_tool', 'open_tool'));
    await appliedSoFar();
    // The probe decides: nothing answers a 402 here, so nothing is listed, and inward addresses are never fetched.
    const probe = await waitFor(async () => {
      const record = await h.container.probing.store.get(httpListingId(named.url));
      return record && record.status !== 'pending' ? record : undefined;
    });
    assert.equal(probe.status, 'rejected');
    for (const url of [named.url, ...refused]) assert.equal(await h.container.catalog.reader.get(httpListingId(url)), undefined, url);
    for (const url of refused) {
      const record = await waitFor(async () => {
        const found = await h.container.probing.store.get(httpListingId(url));
        return found && found.status !== 'pending' ? found : undefined;
      });
      assert.equal(record.reason, 'blocked_address', url);
    }
    assert.equal(await h.container.catalog.reader.get(mcpListingId('mcp://bound-tools.example/squatted_tool', 'squatted_tool')), undefined);
    assert.equal(await h.container.catalog.reader.get(mcpListingId('mcp://free-tools.example/open_tool', 'open_tool')), undefined);
  });

  it('defect 3: a settled payload replayed with other requirements is refused; the same request still gets the cached result', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fundBuyer(payer.address, 10_000n);
    const body = await exactRequest(payer, requirements(seller.address, { amount: '700' }));
    const first = await post('/settle', body);
    assert.equal(first.success, true);
    await assertMined(first.transaction);
    const elsewhere = { ...body, paymentRequirements: { ...body.paymentRequirements, payTo: newWallet().address } };
    const replayed = await post('/settle', elsewhere);
    assert.equal(replayed.success, false);
    assert.equal(replayed.errorReason, 'settlement_requirements_mismatch');
    assert.equal(replayed.transaction, '');
    assert.deepEqual(await post('/settle', body), first);
    assert.equal(await usdcBalance(seller.address), 700n);
  });

  it('fuzz: 150 hostile zero-value, self-paid and forged payloads on /verify and /settle: no 5xx, no listing, no signal, no sponsor spend', async () => {
    const attacker = newWallet();
    const funded = newWallet();
    await fundBuyer(funded.address, 1_000_000n);
    const before = await sponsor();
    let seed = 9;
    const pick = <T>(items: readonly T[]): T => items[(seed = (seed * 1103515245 + 12345) % 2147483648) % items.length]!;
    const urls = [VICTIM.url, 'http://127.1/x', 'http://0x7f000001/x', 'http://[::ffff:127.0.0.1]/x', 'http://localhost./x', 'http://10.0.0.1/x', 'file:///etc/passwd', 'mcp://tools.example/squatted_tool'];
    const amounts = ['0', '00', '-0', '0x0', ' 0', '', '1e3', '99999999999999999999999999999'];
    const ids = new Set<string>([httpListingId(VICTIM.url)]);
    let fiveHundreds = 0;
    for (let i = 0; i < 150; i += 1) {
      const wallet = pick([attacker, funded]);
      const url = pick(urls);
      const amount = pick(amounts);
      const payTo = pick([wallet.address, wallet.address.toLowerCase(), newWallet().address]);
      const base = await exactRequest(wallet, requirements(payTo, { amount: /^\d+$/.test(amount) ? amount : '0' }), { value: '0', signer: pick([wallet, newWallet()]) }, { ...VICTIM, url });
      const variants: unknown[] = [
        base,
        { ...base, paymentRequirements: { ...base.paymentRequirements, amount } },
        { ...base, paymentPayload: { ...base.paymentPayload, payload: { ...base.paymentPayload.payload, authorization: { ...base.paymentPayload.payload.authorization, value: amount } } } },
      ];
      const body = pick(variants);
      try {
        ids.add(httpListingId(url));
      } catch {
        // not an http URL: nothing could be listed under an http id
      }
      for (const path of ['/verify', '/settle']) {
        const res = await request(h.app).post(path).send(body as object);
        if (res.status >= 500) fiveHundreds += 1;
        assert.ok(res.status === 200 || res.status === 400, `${path} answered ${res.status}`);
        assert.notEqual(res.body.success, true, JSON.stringify(body).slice(0, 300));
        assert.notEqual(res.body.isValid, true);
      }
    }
    assert.equal(fiveHundreds, 0);
    assert.equal(await sponsor(), before, 'no sponsor spend');
    await appliedSoFar();
    for (const id of [...ids, mcpListingId('mcp://tools.example/squatted_tool', 'squatted_tool')]) {
      assert.equal(await h.container.catalog.reader.get(id), undefined, id);
      assert.deepEqual(await signals(id), { settleCount7d: 0, rejectionRate7d: 0 }, id);
    }
  });
});
