/**
 * The web catalog in a real browser (Debian's chromium via playwright-core) against the real
 * service with the demo catalog: what a person sees and does, compared with what the JSON API
 * answers for the same request.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { launchBrowser, type Browser } from './support/browser.js';
import { seedDemoCatalog } from './support/demoCatalog.js';
import { startService, type ServiceWorld } from './support/sdkWorld.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { fundBuyer } from './support/chainFunding.js';
import { exactRequest, newWallet, requirements } from './support/payments.js';

describe('web catalog in chromium', function () {
  this.timeout(60_000);
  let world: ServiceWorld;
  let browser: Browser;
  let page: Page;
  let seller: LocalServer;

  before(async () => {
    world = await startService();
    await seedDemoCatalog(world.h);
    seller = await startServer({
      '/paid/forecast': answers.v2(() => v2Challenge(seller.url('/paid/forecast'))),
      '/free': answers.status(200),
      '/.well-known/x402': (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ version: 1, resources: ['/paid/forecast', '/free'] })),
    });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => assert.fail(`script error in the page: ${err.message}`));
  });
  after(async () => {
    await browser?.close();
    await seller?.close();
    await world?.close();
  });

  const open = (path: string) => page.goto(`${world.service.url}${path}`);
  const titles = () => page.locator('.result h2 a').allTextContents();
  const api = async (path: string, query: Record<string, string>) => (await request(world.h.app).get(path).query(query).expect(200)).body;
  /**
   * Waits until the results (or an error) for the current address are shown: the status line names
   * the address its answer is for, so results of an earlier address (shown until the page's effect
   * starts the new request) do not count.
   */
  // Page-side code reaches the DOM through `globalThis`: this file compiles without DOM types.
  const settled = () =>
    page.waitForFunction(() => {
      const { document, location } = globalThis as any;
      const line = document.querySelector('.status-line');
      return line && !line.textContent.includes('Loading') && line.dataset.shownFor === location.search;
    });

  async function search(fields: { q?: string; type?: string; maxPrice?: string; network?: string; sort?: string; explain?: boolean }) {
    await open('/');
    await settled();
    if (fields.q !== undefined) await page.getByLabel('What should it do?').fill(fields.q);
    if (fields.type) await page.getByLabel('Type').selectOption(fields.type);
    if (fields.network) await page.getByLabel('Network').fill(fields.network);
    if (fields.maxPrice) await page.getByLabel('Max price (USDC per call)').fill(fields.maxPrice);
    if (fields.sort) await page.getByLabel('Sort').selectOption(fields.sort);
    if (fields.explain) await page.getByLabel('Explain the ranking').check();
    // Keyboard: Enter in the search box submits the whole form.
    await page.getByLabel('What should it do?').press('Enter');
    await page.waitForURL((url) => url.search.length > 1 || fields.q === undefined);
    await settled();
  }

  it('search: the ranked results of /discovery/search, with human prices and activity', async () => {
    await search({ q: 'translate text' });
    const expected = await api('/discovery/search', { q: 'translate text', limit: '10' });
    assert.deepEqual(await titles(), expected.results.map((l: any) => l.describe?.title ?? l.name));
    // The translation API with traffic (its place in the ranking is the API's business, checked above).
    const translator = expected.results.findIndex((l: any) => l.signals?.settleCount7d === 1300);
    assert.ok(translator >= 0, 'the demo translation API with 1,300 paid calls is among the results');
    const shown = page.locator('.result').nth(translator);
    assert.equal(await shown.locator('.price').textContent(), '0.003 USDC per call');
    assert.match((await shown.locator('.activity').textContent())!, /^1,300 paid calls in 7 days · 2% of payments rejected · last paid .+ ago$/);
    assert.match(await page.locator('.result[data-type="mcp"] .price').first().textContent() ?? '', /^0\.000002 USDC per character \(up to 0\.02 USDC per call\)$/);
  });

  it('filters: type and a max price in USDC become type=mcp&maxUsd=0.005', async () => {
    await search({ type: 'mcp', maxPrice: '0.005' });
    assert.match(page.url(), /[?&]maxUsd=0\.005(&|$)/);
    const expected = await api('/discovery/resources', { type: 'mcp', maxUsd: '0.005', limit: '10' });
    assert.ok(expected.results.length > 0);
    assert.deepEqual(await titles(), expected.results.map((l: any) => l.name));
    assert.deepEqual(new Set(await page.locator('.result').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))), new Set(['mcp']));
  });

  it('max price means USDC: the Base listings (priced in Base USDC) pass 0.001 by their dollar price', async () => {
    // 1000 base units of Base USDC are $0.001 and pass; 10000 ($0.01) do not, whatever the units.
    const byUsd = (await api('/discovery/resources', { maxUsd: '0.001', limit: '100' })).results.map((l: any) => l.describe?.title ?? l.name);
    assert.ok(byUsd.includes('Real-time stock quote') && !byUsd.includes('Historical daily prices'), byUsd.join(', '));
    await search({ maxPrice: '0.001' });
    const expected = await api('/discovery/resources', { maxUsd: '0.001', limit: '10' });
    const shownTitles = await titles();
    assert.deepEqual(shownTitles, expected.results.map((l: any) => l.describe?.title ?? l.name));
    assert.ok(shownTitles.length > 0);
    assert.ok(!shownTitles.includes('Historical daily prices'), shownTitles.join(', '));
    for (const price of await page.locator('.result .price').allTextContents()) {
      const usdc = /^(?:up to )?([\d.]+) USDC\b/.exec(price);
      assert.ok(usdc && Number(usdc[1]) <= 0.001, price);
    }
  });

  it('explain applies at once: ticking it shows the bars without another press of Search', async () => {
    await search({ q: 'weather forecast' });
    assert.equal(await page.locator('.result [data-factor]').count(), 0);
    await page.getByLabel('Explain the ranking').check();
    await page.waitForURL((url) => url.searchParams.get('explain') === '1');
    await settled();
    assert.ok((await page.locator('.result [data-factor="relevance"]').count()) > 0);
    await page.getByLabel('Explain the ranking').uncheck();
    await page.waitForURL((url) => !url.searchParams.has('explain'));
    await settled();
    assert.equal(await page.locator('.result [data-factor]').count(), 0);
  });

  it('sort: cheapest first', async () => {
    await search({ q: 'weather', sort: 'price' });
    const prices = (await page.locator('.result .price').allTextContents()).map((p) => Number(/([\d.]+) USDC/.exec(p)![1]));
    assert.ok(prices.length >= 3, `prices ${prices}`);
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b));
    assert.equal(prices[0], 0.0005);
  });

  it('paging: "More results" follows nextCursor to the end of the catalog', async () => {
    await open('/');
    await settled();
    assert.equal(await page.locator('.result').count(), 10);
    for (let i = 0; i < 10 && (await page.getByRole('button', { name: 'More results' }).count()) > 0; i += 1) {
      await page.getByRole('button', { name: 'More results' }).click();
      await settled();
    }
    const ids = await page.locator('.result').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    assert.equal(ids.length, 42);
    assert.equal(new Set(ids).size, 42);
    assert.equal(await page.locator('.status-line').textContent(), '42 results');
  });

  it('explain: bars for relevance, price and recency, and their product is the score', async () => {
    await search({ q: 'translate text', explain: true });
    const expected = await api('/discovery/search', { q: 'translate text', limit: '10', explain: '1' });
    const first = page.locator('.result').first();
    const width = async (factor: string) =>
      Number.parseFloat(await first.locator(`[data-factor="${factor}"] .fill`).evaluate((el: { style?: { width: string } }) => el.style?.width ?? ''));
    // The best relevance on the page, not necessarily the first result's (price and recency reorder).
    const relevanceWidths = await page
      .locator('.result [data-factor="relevance"] .fill')
      .evaluateAll((els: Array<{ style?: { width: string } }>) => els.map((el) => Number.parseFloat(el.style?.width ?? '')));
    assert.equal(Math.max(...relevanceWidths), 100, 'the best relevance on the page fills its bar');
    assert.ok(Math.abs((await width('relevance')) - (100 * expected.results[0].debug.relevance) / Math.max(...expected.results.map((r: { debug: { relevance: number } }) => r.debug.relevance))) <= 0.05);
    assert.ok(Math.abs((await width('priceBoost')) - expected.results[0].debug.priceBoost * 100) <= 0.05);
    assert.ok(Math.abs((await width('recencyBoost')) - expected.results[0].debug.recencyBoost * 100) <= 0.05);
    assert.ok((await width('recencyBoost')) < 100, 'a listing last paid days ago has a shorter recency bar');
    const score = Number(await first.locator('[data-score]').textContent());
    assert.ok(Math.abs(score - expected.results[0].debug.score) / expected.results[0].debug.score < 1e-3);
  });

  it('listing page: description, inputs and an x402 client snippet; an MCP tool shows schemas and a client configuration', async () => {
    await search({ q: 'translate text' });
    await page.getByRole('link', { name: 'Text translation' }).click();
    await page.waitForSelector('.listing');
    assert.match(page.url(), /\/listings\/lst_[0-9a-f]{24}$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Text translation HTTP endpoint');
    assert.deepEqual(await page.locator('.inputs tbody td code').allTextContents(), ['text', 'target', 'source']);
    // The evidence the listing stands on, as the API records it (the demo catalog is imported data).
    const id = page.url().split('/').pop()!;
    const provenance = (await request(world.h.app).get(`/discovery/resources/${id}`).expect(200)).body.provenance;
    assert.deepEqual(Object.keys(provenance), ['imported']);
    const evidence = await page.locator('.evidence li').allTextContents();
    assert.equal(evidence.length, 1);
    assert.match(evidence[0]!, new RegExp(`^Imported from ${provenance.imported.source} (now|\\d+ seconds? ago|\\d+ minutes? ago)$`));
    const snippet = (await page.locator('.code pre').first().textContent())!;
    assert.match(snippet, /wrapFetchWithPayment\(fetch, client\)/);
    assert.match(snippet, /fetchWithPayment\("https:\/\/translate\.lingobridge\.com\/v1\/translate"\)/);

    await page.goBack();
    await settled();
    await page.getByRole('link', { name: 'translate_text' }).click();
    await page.waitForSelector('.listing');
    assert.match((await page.locator('pre.schema').first().textContent())!, /"targetLanguage"/);
    const config = JSON.parse((await page.locator('.code pre').first().textContent())!);
    assert.deepEqual(config, { mcpServers: { 'mcp.lingobridge.com': { type: 'http', url: 'https://mcp.lingobridge.com/mcp' } } });
  });

  it('merchant page: the listing page links its payTo to every listing of that merchant, with totals', async () => {
    await search({ q: 'translate text' });
    await page.getByRole('link', { name: 'Text translation' }).click();
    await page.waitForSelector('.listing');
    await page.locator('a.merchant-link').click();
    await page.waitForSelector('.merchant .summary');
    const payTo = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const expected = await api('/discovery/merchant', { payTo, limit: '20' });
    assert.equal(await page.locator('[data-summary="listings"]').textContent(), `${expected.summary.listings} (${expected.summary.http} HTTP, ${expected.summary.mcp} MCP)`);
    assert.equal(await page.locator('[data-summary="settleCount7d"]').textContent(), expected.summary.settleCount7d.toLocaleString('en-US'));
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('.merchant .result').length === n, expected.results.length);
    assert.deepEqual(await titles(), expected.results.map((l: any) => l.describe?.title ?? l.name));
    assert.ok((await titles()).includes('Text translation'));
  });

  it('merchant page: its recent settlements on chain, each with the transaction hash, also at phone width', async () => {
    const payTo = (await api('/discovery/search', { q: 'translate text', limit: '1' })).results[0].payment.payTo as string;
    const buyer = newWallet();
    await fundBuyer(buyer.address, 10_000n);
    const settled = (await request(world.h.app).post('/settle').send(await exactRequest(buyer, requirements(payTo, { amount: '2500' }))).expect(200)).body;
    assert.equal(settled.success, true, JSON.stringify(settled));
    await page.setViewportSize({ width: 375, height: 800 });
    await open(`/merchants/${encodeURIComponent(payTo)}`);
    const row = page.locator(`.settlements tr[data-transaction="${settled.transaction}"]`);
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /0\.0025 USDC/);
    assert.equal(await row.locator('code.hash').textContent(), settled.transaction);
    const wide = await page.evaluate(() => {
      const document = (globalThis as any).document;
      return [...document.querySelectorAll('.merchant *')]
        .filter((e: any) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`);
    });
    assert.deepEqual(wide, []);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('seller status: announcing a URL that answers 402 shows it listed', async () => {
    const url = seller.url('/paid/forecast');
    await open('/sellers');
    await page.getByLabel('URL or listing id').fill(url);
    await page.getByRole('button', { name: 'Check status' }).click();
    await page.getByText('Not announced or listed yet.').waitFor();
    await page.getByRole('button', { name: 'Announce' }).click();
    await page.locator('.status[data-status="listed"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('.status h2').textContent(), 'Listed: buyers can find it.');
    assert.match(page.url(), /\/sellers\?lookup=/);
  });

  it('seller status: a URL that is not paid is rejected, with the reason in plain words', async () => {
    await open('/sellers');
    await page.getByLabel('URL or listing id').fill(seller.url('/free'));
    await page.getByRole('button', { name: 'Announce' }).click();
    await page.locator('.status[data-status="rejected"]').waitFor({ timeout: 15_000 });
    assert.equal(
      await page.locator('.status .reason').textContent(),
      'The URL did not answer with 402 Payment Required, so it is not a paid x402 resource. (answered 200 instead of 402)',
    );
  });

  it('seller status: announcing an origin lists what its /.well-known/x402 names, each with its outcome in plain words', async () => {
    const origin = seller.url('');
    await open('/sellers');
    await page.getByLabel('URL or listing id').fill(origin);
    await page.getByRole('button', { name: 'Announce' }).click();
    await page.locator('.status.origin li[data-status="rejected"]').waitFor({ timeout: 15_000 });
    await page.locator('.status.origin li[data-status="listed"]').waitFor({ timeout: 15_000 });
    assert.match((await page.locator('.status.origin .manifests').textContent())!, /\/\.well-known\/x402: read, 2 resources/);
    assert.equal(
      await page.locator('.status.origin li[data-status="rejected"] .outcome').textContent(),
      'Rejected: The URL did not answer with 402 Payment Required, so it is not a paid x402 resource. (answered 200 instead of 402)',
    );
  });

  it('a bad filter value is shown as the API\'s message; a bad USDC amount is caught before calling', async () => {
    await search({ q: 'weather', network: 'not-a-network' });
    assert.equal(
      await page.getByRole('alert').textContent(),
      'Invalid value for network: must be a CAIP-2 network id such as eip155:84532 (or a known x402 v1 name)',
    );
    assert.equal(await page.locator('.result').count(), 0);
    await search({ q: 'weather', maxPrice: '0.0000001' });
    assert.equal(await page.getByRole('alert').textContent(), 'Max price must be a USDC amount such as 0.005 (at most 6 decimals).');
  });

  it('works at phone width: nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await search({ q: 'weather', explain: true });
    const wide = await page.evaluate(() => {
      const document = (globalThis as any).document;
      return [...document.querySelectorAll('body *')]
        .filter((e: any) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`);
    });
    assert.deepEqual(wide, []);
    assert.equal(await page.evaluate(() => {
      const root = (globalThis as any).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    }), 0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
