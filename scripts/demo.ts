/**
 * Loads the demo catalog (demo/catalog.json) through the write path and waits until it is applied.
 * Idempotent: listings already in the catalog (removed ones included) are left alone, so restarts
 * never clobber signals gathered since or resurrect what an operator removed; `--force` rewrites.
 * Settlement times in the file are shifted so the most recent one is a few minutes ago. On the dev
 * chain (CHAIN_RPC_URL, when a dev node answers) it funds the demo buyer, Hardhat's account #2,
 * with test USDC and gas, and prints its key for @x402/fetch or x402-fetch (DEMO_BUYER_USDC, 100).
 *   npm run demo [-- --force]        (scripts/dev.sh runs the built dist/scripts/demo.js)
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildListingDocument } from '../src/catalog/document.js';
import { importListings, parseListingFile, type ParsedEntry } from '../src/catalog/transfer.js';
import { validateListingInput } from '../src/catalog/validation.js';
import type { ListingInput } from '../src/shapes/listingInput.js';
import { drainQueue, openCatalogSession } from '../src/cli/catalogSession.js';
import { fail } from '../src/cli/options.js';

const CANDIDATES = ['../demo/catalog.json', '../../demo/catalog.json'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

function readDemoFile(): string {
  for (const path of CANDIDATES) {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return fail(`demo catalog not found (looked at ${CANDIDATES.join(', ')})`, 1);
}

/** Keeps the file's spacing between settlements but moves the latest to `now - 3 min`. */
function rebaseSettlements(entries: ParsedEntry[], now: Date): void {
  const times = entries.flatMap((e) => {
    const last = 'value' in e ? (e.value as { signals?: { lastSettled?: string } }).signals?.lastSettled : undefined;
    return last ? [Date.parse(last)] : [];
  });
  if (times.length === 0) return;
  const shift = now.getTime() - 3 * 60_000 - Math.max(...times);
  for (const e of entries) {
    const signals = 'value' in e ? (e.value as { signals?: { lastSettled?: string } }).signals : undefined;
    if (signals?.lastSettled) signals.lastSettled = new Date(Date.parse(signals.lastSettled) + shift).toISOString();
  }
}

/**
 * The demo buyer's money on the dev chain, topped up to DEMO_BUYER_USDC. Loaded on demand: the dev
 * chain's module compiles with solc (a dev dependency), and a catalog without a chain still loads.
 */
async function fundDemoBuyer(): Promise<void> {
  try {
    const { DEV_KEYS, NotADevChain, fundBuyer, usdcBalance, ensureDevChain } = await import('../chain/devChain.js');
    const { privateKeyToAccount } = await import('viem/accounts');
    const buyer = privateKeyToAccount(DEV_KEYS[2]).address;
    const target = BigInt(process.env.DEMO_BUYER_USDC ?? '100') * 1_000_000n;
    try {
      await ensureDevChain();
    } catch (err) {
      process.stderr.write(`[demo] no dev chain to fund the demo buyer on (${err instanceof NotADevChain ? err.message : 'no node answers'})\n`);
      return;
    }
    const missing = target - await usdcBalance(buyer);
    const funded = await fundBuyer(buyer, missing > 0n ? missing : 0n, 0n);
    process.stderr.write(`[demo] demo buyer ${buyer} (key ${DEV_KEYS[2]}, Hardhat's public account #2) holds ${funded.usdc} base units of test USDC and ${funded.wei} wei on the dev chain\n`);
  } catch (err) {
    process.stderr.write(`[demo] the demo buyer was not funded: ${(err as Error).message}\n`);
  }
}

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  const now = new Date();
  const entries = parseListingFile(readDemoFile());
  rebaseSettlements(entries, now);
  const session = await openCatalogSession();
  try {
    const idOf = (e: ParsedEntry) =>
      'value' in e && validateListingInput(e.value).length === 0 ? buildListingDocument(e.value as ListingInput, { source: 'demo' }, now).id : undefined;
    const existing = force ? new Map() : await session.catalog.reader.getMany(entries.flatMap((e) => idOf(e) ?? []));
    const todo = entries.filter((e) => !existing.has(idOf(e) ?? ''));
    const result = await importListings(session.catalog.writer, todo, { source: 'demo' });
    for (const r of result.rejected) process.stderr.write(`demo entry #${r.index} rejected: ${JSON.stringify(r.errors)}\n`);
    if (result.accepted.length > 0) await drainQueue(session, { timeoutMs: 60_000 });
    process.stderr.write(
      `[demo] ${result.accepted.length} demo listings written, ${entries.length - todo.length} already present` +
        `${result.rejected.length ? `, ${result.rejected.length} rejected` : ''}\n`,
    );
  } finally {
    await session.close();
  }
  await fundDemoBuyer();
}

main().catch((err) => fail(`demo failed: ${(err as Error).message}`, 1));
