/**
 * Regenerates the web catalog's screenshots in docs/screenshots/ (README, docs/web.md): a scratch
 * deployment with the demo catalog, the service on loopback, Debian's chromium (scripts/browser.sh).
 *   npm run bench -- screenshots
 * Uses its own index and Redis prefix (deleted afterwards); needs Elasticsearch and Redis up.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../../test/support/browser.js';
import { startServiceInProcess } from '../lib/benchService.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outDir = `${root}docs/screenshots`;

async function main(): Promise<void> {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-web.ts'], { cwd: root, stdio: 'inherit' });
  const stamp = Date.now().toString(36);
  const env = {
    ...process.env,
    LISTINGS_ALIAS: `screenshots-${stamp}`,
    LISTINGS_INDEX: `screenshots-${stamp}-v1`,
    REDIS_PREFIX: `screenshots:${stamp}:`,
    PROBE_ALLOW: '127.0.0.1/32',
    LOG_LEVEL: 'warn',
  };
  // The demo loader itself (settlement times moved to just now), into the scratch deployment.
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { cwd: root, env, stdio: 'inherit' });
  const service = await startServiceInProcess(env);
  // A URL that answers 200: what a seller sees when an endpoint is not paid.
  const free = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
  const freeUrl = `http://127.0.0.1:${(free.address() as AddressInfo).port}/v1/weather`;
  const browser = await launchBrowser({ width: 1280, height: 1000 });
  try {
    mkdirSync(outDir, { recursive: true });
    const page = await browser.context.newPage();
    const shot = async (name: string) => {
      await page.screenshot({ path: `${outDir}/${name}.png` });
      process.stderr.write(`[screenshots] docs/screenshots/${name}.png\n`);
    };

    await page.goto(`${service.url}/?q=weather+forecast&explain=1`);
    await page.locator('.result .explain').first().waitFor();
    await shot('search-explain');

    await page.getByRole('link', { name: 'get_weather_forecast' }).click();
    await page.locator('.listing .code').first().waitFor();
    await shot('listing-mcp');

    await page.goto(`${service.url}/?q=translate+text`);
    await page.getByRole('link', { name: 'Text translation' }).click();
    await page.locator('.listing .code').first().waitFor();
    await page.locator('h2', { hasText: 'Call it' }).scrollIntoViewIfNeeded();
    await shot('listing-http');

    await page.goto(`${service.url}/sellers`);
    await page.getByLabel('URL or listing id').fill(freeUrl);
    await page.getByRole('button', { name: 'Announce' }).click();
    await page.locator('.status[data-status="rejected"]').waitFor({ timeout: 15_000 });
    await shot('seller-status');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${service.url}/?q=weather&maxPrice=0.002`);
    await page.locator('.result').first().waitFor();
    await shot('phone');
  } finally {
    await browser.close();
    free.close();
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[screenshots] failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
