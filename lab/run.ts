/**
 * The lab's one entry point: `npm run bench -- <tool> [options]` from the repository root (or
 * `npm run <tool> -w lab -- [options]`). Each tool runs from the repository root, as the service
 * does, so that `.cache/`, `mappings/` and the environment defaults mean the same to both.
 *
 *   npm run bench                     lists the tools
 *   npm run bench -- search --help    one tool's options
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAB = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(LAB, '..');

/** Tool name -> file under lab/: every benchmark by its name, the tuning tools as `tune:<name>`, and the rest. */
function tools(): Map<string, string> {
  const found = new Map<string, string>();
  const folder = (dir: string, prefix = '') => {
    for (const file of readdirSync(join(LAB, dir)).sort()) {
      if (file.endsWith('.ts')) found.set(prefix + basename(file, '.ts'), join(dir, file));
    }
  };
  folder('bench');
  folder('tune', 'tune:');
  found.set('all', 'bench/all.sh');
  found.set('soak', 'soak/soak.ts');
  found.set('fuzz', 'fuzz/fuzz.ts');
  found.set('chaos', 'chaos/clusterChaos.ts');
  found.set('shutdown-repro', 'chaos/shutdownRepro.ts');
  found.set('screenshots', 'tools/screenshots.ts');
  return found;
}

const [name, ...args] = process.argv.slice(2);
const known = tools();
const file = name ? known.get(name) : undefined;
if (!file || !existsSync(join(LAB, file))) {
  if (name) process.stderr.write(`unknown lab tool "${name}"\n\n`);
  process.stderr.write(`usage: npm run bench -- <tool> [options]\n\ntools: ${[...known.keys()].join(', ')}\n`);
  process.exit(name ? 2 : 0);
}
const command = file.endsWith('.sh') ? ['bash', [join(LAB, file), ...args]] as const : [process.execPath, ['--import', 'tsx', join(LAB, file), ...args]] as const;
const run = spawnSync(command[0], command[1], { cwd: ROOT, stdio: 'inherit' });
process.exit(run.status ?? 1);
