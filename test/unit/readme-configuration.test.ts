import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * The README's configuration table is the operator's list of every environment variable the
 * service reads: each name the config modules read appears in it, and it names none they do not.
 */
const CONFIG_FILES = [
  ...(existsSync('src/config.ts') ? ['src/config.ts'] : []),
  ...readdirSync('src/config').filter((f) => f.endsWith('.ts')).map((f) => `src/config/${f}`),
];

function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const file of CONFIG_FILES) {
    const source = readFileSync(file, 'utf8');
    // read.integer('NAME', ...), read.string('NAME', ...), read.oneOf(...), readRateRule(read, 'NAME', ...), readWei(read, 'NAME', ...)
    for (const m of source.matchAll(/\.(?:integer|string|oneOf)\(\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
    for (const m of source.matchAll(/read(?:RateRule|Wei)\(\s*read,\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
    for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return names;
}

function readmeTable(): Set<string> {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'), readme.indexOf('\n## Operating\n'));
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1]!;
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

describe('README configuration table', () => {
  it('lists every environment variable the config modules read, and no other', () => {
    const read = variablesRead();
    const listed = readmeTable();
    assert.ok(read.size > 60, `found only ${read.size} variables in ${CONFIG_FILES.join(', ')}`);
    assert.deepEqual([...read].filter((n) => !listed.has(n)).sort(), [], 'read but not in the README table');
    assert.deepEqual([...listed].filter((n) => !read.has(n)).sort(), [], 'in the README table but never read');
  });
});
