/**
 * Imports listings (SPEC.md section 2 shape, optional `signals`; `id` ignored) from a JSON array or
 * JSON lines file through the bulk write path, then waits until they are applied.
 *   npm run import -- FILE [--source NAME] [--no-wait]
 * --source names where the listings come from (another catalog, a partner's file); each imported
 * listing's provenance says `imported: {source, at}` (default: the file's name, `stdin` for -).
 * Same environment as the server (ELASTICSEARCH_URL, REDIS_URL, LISTINGS_ALIAS, REDIS_PREFIX, ...).
 * Exit code 0 when every entry was accepted, 1 when some were rejected (the others are imported).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { importListings, parseListingFile } from '../src/catalog/transfer.js';
import { drainQueue, openCatalogSession } from '../src/cli/catalogSession.js';
import { fail, parseCommandLine } from '../src/cli/options.js';

const USAGE = 'usage: import FILE [--source NAME] [--no-wait]   (FILE: a JSON array or JSON lines of listings; - for stdin)';

async function readInput(file: string): Promise<string> {
  if (file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    { allowPositionals: true, options: { 'no-wait': { type: 'boolean' }, source: { type: 'string' }, help: { type: 'boolean', short: 'h' } } },
    USAGE,
  );
  const [file] = positionals;
  if (values.help || !file || positionals.length > 1) fail(USAGE, values.help ? 0 : 2);
  let text: string;
  try {
    text = await readInput(file);
  } catch (err) {
    return fail(`cannot read ${file}: ${(err as Error).message}`, 1);
  }
  const importedFrom = (values.source ?? (file === '-' ? 'stdin' : basename(file))).trim().slice(0, 200);
  if (importedFrom.length === 0) fail('--source must not be empty', 2);
  const session = await openCatalogSession();
  try {
    const result = await importListings(session.catalog.writer, parseListingFile(text), { source: 'import', evidence: { importedFrom } });
    for (const rejected of result.rejected) {
      const reasons = rejected.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
      process.stderr.write(`rejected entry #${rejected.index}: ${reasons}\n`);
    }
    const created = result.accepted.filter((a) => a.created).length;
    if (!values['no-wait'] && result.accepted.length > 0) await drainQueue(session);
    process.stdout.write(
      `imported ${result.accepted.length} of ${result.total} listings (${created} new, ${result.accepted.length - created} updated), ` +
        `${result.rejected.length} rejected${values['no-wait'] ? ' (queued; the service applies them)' : ''}\n`,
    );
    process.exitCode = result.rejected.length > 0 ? 1 : 0;
  } finally {
    await session.close();
  }
}

main().catch((err) => fail(`import failed: ${(err as Error).message}`, 1));
