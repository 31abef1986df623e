/**
 * Another commit of this repository checked out beside it, for the benchmarks that measure two
 * codes in one run (bench-table, bench-gateway-pair): a detached git worktree under .cache/ that
 * shares this checkout's node_modules and embedding models, removed at the end.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface Code {
  label: string;
  dir: string;
  /** A worktree this run made: removed at the end. */
  worktree?: boolean;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const SHARED = ['node_modules', join('.cache', 'models')];

/** REF checked out beside this one (detached, under .cache/), sharing node_modules and the models. */
export function worktreeOf(ref: string, purpose = 'bench-table'): Code {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(ROOT, '.cache', purpose, sha.slice(0, 12));
  if (existsSync(dir)) removeWorktree(dir);
  git('worktree', 'add', '--detach', dir, sha);
  mkdirSync(join(dir, '.cache'), { recursive: true });
  for (const shared of SHARED) if (existsSync(join(ROOT, shared))) symlinkSync(join(ROOT, shared), join(dir, shared));
  return { label: `${ref} (${sha.slice(0, 8)})`, dir, worktree: true };
}

/** The links first, so that nothing they point at (this checkout's node_modules, the models) is touched. */
export function removeWorktree(dir: string): void {
  for (const shared of SHARED) rmSync(join(dir, shared), { force: true });
  git('worktree', 'remove', '--force', dir);
}

/** This checkout, named by its commit (and whether it has changes on top). */
export function head(): Code {
  const sha = git('rev-parse', '--short=8', 'HEAD');
  const label = git('status', '--porcelain', '--untracked-files=no') === '' ? `HEAD (${sha})` : `HEAD (${sha}) + uncommitted changes`;
  return { label, dir: ROOT };
}

/** A benchmark of a checkout: lab/bench/NAME.ts, or scripts/bench-NAME.ts in a code from before the lab moved out. */
export function benchFile(code: Code, name: string): string {
  const lab = join(code.dir, 'lab', 'bench', `${name}.ts`);
  return existsSync(lab) ? lab : join(code.dir, 'scripts', `bench-${name}.ts`);
}
