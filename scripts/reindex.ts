/**
 * npm run reindex [-- --restart] [--page-size N]: zero-downtime reindex of the listing index into a
 * new versioned index with the current mappings/listings.json (analyzers, index sort) and the
 * LISTINGS_SHARDS / LISTINGS_REPLICAS layout, while the service keeps serving (docs/reindex.md).
 * Same environment as the service (ELASTICSEARCH_URL, LISTINGS_ALIAS). Progress on stderr.
 */
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { reindexListings, ReindexError, type ReindexProgress } from './lib/listingReindex.js';
import { fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from '../src/cli/options.js';

const { values } = parseCommandLine(
  { options: { restart: { type: 'boolean', default: false }, 'page-size': { type: 'string', default: '1000' } } },
  'usage: reindex [--restart] [--page-size N]',
);

function progressLine(started: number): (p: ReindexProgress) => void {
  let lastCopyLine = 0;
  return (p) => {
    const seconds = (Date.now() - started) / 1000;
    if (p.phase === 'copy' && p.total !== undefined) {
      if (Date.now() - lastCopyLine < 500 && p.copied < p.total) return;
      lastCopyLine = Date.now();
      const rate = p.copied / Math.max(seconds, 0.001);
      const left = Math.max(0, p.total - p.copied) / Math.max(rate, 1);
      const percent = p.total > 0 ? Math.min(100, Math.floor((100 * p.copied) / p.total)) : 100;
      process.stderr.write(`\rcopying ${p.from} -> ${p.to}: ${p.copied}/${p.total} (${percent}%), ${Math.round(rate)}/s, ~${Math.ceil(left)} s left   `);
      return;
    }
    const text: Record<string, string> = {
      prepare: `creating ${p.to} from mappings/listings.json (the ranking tunables of ${p.from} carried over)`,
      'catch-up': `catch-up round ${p.round}: ${p.copied} documents written so far`,
      switch: `writes to ${p.from} paused (they wait in the write stream); copying the last changes and switching the alias`,
      done: `alias now points at ${p.to}`,
    };
    if (text[p.phase]) process.stderr.write(`\n${text[p.phase]}`);
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrFail({ LOG_LEVEL: 'warn', ...process.env });
  const client = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const started = Date.now();
  try {
    const result = await reindexListings(client, {
      alias: config.listingsAlias,
      layout: config.listingsLayout,
      pageSize: numberOption('page-size', values['page-size'], { max: 10_000 }),
      restart: values.restart,
      onProgress: progressLine(started),
    });
    process.stderr.write('\n');
    process.stdout.write(
      `reindexed ${config.listingsAlias}: ${result.from} -> ${result.to}, ${result.copied} documents written, ` +
        `${result.rounds} catch-up round(s), writes paused ${result.blockedMs} ms, ${(result.ms / 1000).toFixed(1)} s in all.\n` +
        `${result.from} is kept, read-only; delete it once no export or rollback needs it: curl -X DELETE <elasticsearch>/${result.from}\n`,
    );
  } catch (err) {
    process.stderr.write('\n');
    if (err instanceof ReindexError) fail(`reindex refused: ${err.message}`, 1);
    throw err;
  } finally {
    await client.close();
  }
}

runMain('reindex', main);
