/**
 * Compiles our contracts (chain/contracts/*.sol, written with @openzeppelin/contracts) with the
 * solc npm package's JavaScript compiler: no compiler binary is downloaded, ever. The output is
 * cached in .cache/chain/ under a hash of the sources, the compiler version and the settings, so
 * a change to any of them compiles again and nothing else does (a compile takes seconds).
 *
 *   node --import tsx chain/build.ts        compiles (or finds the cache) and prints the contracts
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface Artifact {
  abi: Abi;
  /** Creation code (constructor included). */
  bytecode: Hex;
  /** Runtime code, with immutables left as zeros (what a deployment's eth_getCode answers differs there). */
  deployedBytecode: Hex;
  /** Where the runtime code holds immutables: byte offsets and lengths, to compare code without them. */
  immutables: { start: number; length: number }[];
}

export type Artifacts = Record<string, Artifact>;

const require = createRequire(import.meta.url);

/**
 * The repository root: the folder holding chain/contracts, found from this file whether it runs
 * from chain/ (tsx) or from dist/chain/ (the build `npm run dev` runs).
 */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'chain', 'contracts'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('chain/contracts not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

/**
 * solc settings. Cancun is what the Hardhat node runs (chain/hardhat.config.cjs) and what
 * OpenZeppelin 5's mcopy needs; the optimizer keeps the token's settle gas close to FiatToken's.
 */
const SETTINGS = {
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string; immutableReferences?: Record<string, { start: number; length: number }[]> } } }>>;
}

/** What this process has read or compiled, by cache file (the key changes with the sources). */
const built = new Map<string, Artifacts>();

/** Every contract of chain/contracts by name, compiled now or read from the cache. */
export function buildContracts(root = repositoryRoot()): Artifacts {
  const contractsDir = join(root, 'chain', 'contracts');
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(contractsDir).filter((name) => name.endsWith('.sol')).sort()) {
    sources[`chain/contracts/${file}`] = { content: readFileSync(join(contractsDir, file), 'utf8') };
  }
  const solc = require('solc') as { version(): string; compile(input: string, callbacks: object): string };
  const ozVersion = (require('@openzeppelin/contracts/package.json') as { version: string }).version;
  const key = createHash('sha256').update(JSON.stringify([solc.version(), ozVersion, SETTINGS, sources])).digest('hex').slice(0, 16);
  const cacheDir = join(process.env.CACHE_DIR ? resolve(process.env.CACHE_DIR) : join(root, '.cache'), 'chain');
  const cacheFile = join(cacheDir, `artifacts-${key}.json`);
  const remembered = built.get(cacheFile);
  if (remembered) return remembered;
  if (existsSync(cacheFile)) {
    const artifacts = JSON.parse(readFileSync(cacheFile, 'utf8')) as Artifacts;
    built.set(cacheFile, artifacts);
    return artifacts;
  }

  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch {
      return { error: `not found: ${path}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS }), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) throw new Error(`solc ${solc.version()}:\n${errors.map((entry) => entry.formattedMessage).join('\n')}`);
  const artifacts: Artifacts = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    if (!file.startsWith('chain/contracts/')) continue;
    for (const [name, contract] of Object.entries(contracts)) {
      artifacts[name] = {
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
        immutables: Object.values(contract.evm.deployedBytecode.immutableReferences ?? {}).flat(),
      };
    }
  }
  mkdirSync(cacheDir, { recursive: true });
  // Written aside and renamed: two processes compiling at once never read half a file.
  writeFileSync(`${cacheFile}.${process.pid}`, JSON.stringify(artifacts));
  renameSync(`${cacheFile}.${process.pid}`, cacheFile);
  built.set(cacheFile, artifacts);
  return artifacts;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const artifacts = buildContracts();
  for (const [name, artifact] of Object.entries(artifacts)) {
    process.stdout.write(`${name}\t${(artifact.deployedBytecode.length - 2) / 2} bytes of runtime code\n`);
  }
  process.stdout.write(`built in ${Date.now() - started} ms\n`);
}
