/**
 * Exports the live catalog (removed listings excluded) as a JSON array in the SPEC.md section 2
 * shape, one listing per line, from one point-in-time snapshot.
 *   npm run export -- [FILE]      (stdout without FILE)
 * Same environment as the server. The file imports back with `npm run import -- FILE`.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { exportedListing } from '../src/catalog/transfer.js';
import { scanLiveListings } from '../src/store/elasticsearch/listingScan.js';
import { openCatalogSession } from '../src/cli/catalogSession.js';
import { fail } from '../src/cli/options.js';

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.length > 1 || args[0] === '-h' || args[0] === '--help') fail('usage: export [FILE]', args[0]?.startsWith('-') ? 0 : 2);
  const file = args[0];
  const session = await openCatalogSession();
  const out: Writable = file && file !== '-' ? createWriteStream(file) : process.stdout;
  let count = 0;
  try {
    await write(out, '[');
    for await (const page of scanLiveListings(session.elasticsearch, session.config.listingsAlias)) {
      for (const doc of page) {
        await write(out, `${count === 0 ? '\n' : ',\n'}${JSON.stringify(exportedListing(doc))}`);
        count += 1;
      }
    }
    await write(out, count === 0 ? ']\n' : '\n]\n');
  } finally {
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    await session.close();
  }
  process.stderr.write(`exported ${count} listings${file && file !== '-' ? ` to ${file}` : ''}\n`);
}

main().catch((err) => fail(`export failed: ${(err as Error).message}`, 1));
