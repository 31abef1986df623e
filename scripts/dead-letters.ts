/**
 * Operator command for the catalog's dead-lettered writes (same environment as the server):
 *   npm run dead-letters -- list [--count 100]     oldest first: listing id, attempts, reason
 *   npm run dead-letters -- requeue [--count 1000] put them back on the write stream (after a fix)
 */
import { openCatalogSession } from '../src/cli/catalogSession.js';
import { fail, parseCommandLine } from '../src/cli/options.js';

const USAGE = 'usage: dead-letters list|requeue [--count N]';

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine({ allowPositionals: true, options: { count: { type: 'string' } } }, USAGE);
  const [command] = positionals;
  const count = values.count === undefined ? undefined : Number(values.count);
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) fail(`--count must be a positive integer\n${USAGE}`);
  if (command !== 'list' && command !== 'requeue') fail(USAGE);
  const session = await openCatalogSession();
  try {
    if (command === 'list') {
      const letters = await session.catalog.queue.deadLetters(count ?? 100);
      for (const letter of letters) {
        const id = /"id":"([^"]+)"/.exec(letter.payload)?.[1] ?? '-';
        process.stdout.write(`${letter.failedAt}\t${id}\tattempts=${letter.attempts}\t${letter.reason}\n`);
      }
      const stats = await session.catalog.queue.stats();
      process.stderr.write(`${stats.deadLetters} dead letters in total\n`);
    } else {
      const moved = await session.catalog.queue.requeueDeadLetters(count ?? 1000);
      process.stdout.write(`requeued ${moved} writes; the running service applies them\n`);
    }
  } finally {
    await session.close();
  }
}

main().catch((err) => fail(`dead-letters failed: ${(err as Error).message}`, 1));
