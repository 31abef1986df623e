/**
 * Imports past paid outcomes (issue 45, docs/catalog-reads.md "Paid outcomes"): JSON lines of
 * `{ "q", "resource", "payer", "at" }`, each a search and the listed resource its payer paid for
 * after it, so a new deployment's ranking starts with its history.
 *   npm run import:outcomes -- FILE
 * Same environment as the server (ELASTICSEARCH_URL, REDIS_URL, LISTINGS_ALIAS, REDIS_PREFIX,
 * EMBEDDING_MODEL, ...): the searches are embedded with the service's model. Each link keeps its
 * provenance (the file's name, its line, when it was imported). Exit code 0 when every line was
 * linked, 1 when some were rejected (a bad line, a resource not listed) or skipped (a self-payment,
 * circular value); the others are imported.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { openCatalogSession } from '../src/cli/catalogSession.js';
import { fail, parseCommandLine } from '../src/cli/options.js';
import { openOutcomeImport } from '../src/cli/outcomeImport.js';

const USAGE = 'usage: import:outcomes FILE   (JSON lines of {"q", "resource", "payer", "at"})';

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine({ allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } }, USAGE);
  const [file] = positionals;
  if (values.help || !file || positionals.length > 1) fail(USAGE, values.help ? 0 : 2);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return fail(`cannot read ${file}: ${(err as Error).message}`, 1);
  }
  const session = await openCatalogSession();
  try {
    const result = await openOutcomeImport(session).run(text, basename(file));
    for (const r of result.rejected) process.stderr.write(`rejected line ${r.line}: ${r.errors.map((e) => `${e.path} ${e.message}`).join('; ')}\n`);
    for (const s of result.skipped) process.stderr.write(`skipped line ${s.line}: ${s.reason.replace(/_/g, ' ')}\n`);
    process.stdout.write(`linked ${result.linked} of ${result.total} outcomes, ${result.rejected.length} rejected, ${result.skipped.length} skipped\n`);
    process.exitCode = result.rejected.length + result.skipped.length > 0 ? 1 : 0;
  } finally {
    await session.close();
  }
}

main().catch((err) => fail(`import:outcomes failed: ${(err as Error).message}`, 1));
