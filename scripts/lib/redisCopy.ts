/**
 * Copying one deployment's Redis keys (everything under its prefix) from one Redis into another
 * Redis or a Redis Cluster: how a deployment on a single Redis moves into a Cluster
 * (`npm run redis:copy`; docs/elasticsearch-cluster.md "Moving a deployment into a Cluster").
 *
 * Each key goes over as DUMP + RESTORE, so every type keeps its exact content (a stream keeps its
 * consumer groups, their last-delivered ids and pending entries; sorted sets their scores), with the
 * time it had left to live (PTTL, less the time since it was read; RESTORE sets it relative to the
 * target's clock, so the deadline is the source's within the copy's round trips). Keys named
 * before the hash tags get their tagged name on the way (`taggedName`). The source is walked with
 * SCAN, and reads and writes are auto-pipelined per batch (per primary on a Cluster).
 *
 * Not a live migration: a write to the source after its key was read is not copied. The procedure
 * (docs) is to stop the gateways first.
 */
import { Cluster } from 'ioredis';
import { deleteKeys, duplicateClient, scanKeys, type RedisClient } from '../../src/store/redis/client.js';
import { redisKeys, taggedName } from '../../src/store/redis/redisKeys.js';

/** The copy would not be safe or meaningful; nothing was written. */
export class CopyRefused extends Error {}

export interface PlannedKey {
  source: string;
  target: string;
  type: string;
  /** Milliseconds left to live on the source; undefined: no expiry. */
  ttlMs?: number;
}

export interface CopyOptions {
  /** Drop the target's keys under the prefix first (otherwise a target holding any is refused). */
  replace?: boolean;
  /** Read and report only: nothing is written to the target. */
  dryRun?: boolean;
  /** Keys per SCAN batch and pipelined round of reads and writes. */
  batchSize?: number;
  onProgress?: (progress: { scanned: number; copied: number }) => void;
  /** Every key that is (or, on a dry run, would be) copied. */
  onKey?: (key: PlannedKey) => void;
}

export interface Verification {
  /** Keys under the prefix on the target after the copy. */
  targetKeys: number;
  /** Missing keys, extra keys and keys of another type (at most 20 named). */
  problems: string[];
  /** Copied keys whose TTL ran out between the copy and the check (not a problem). */
  expiredSince: number;
}

export interface CopyReport {
  scanned: number;
  copied: number;
  copiedByType: Record<string, number>;
  /** Keys from before the hash tags that got their tagged name. */
  renamed: number;
  /** Source keys not copied, with why. */
  skipped: Array<{ key: string; reason: string }>;
  /** Keys whose TTL ran out between the SCAN and their RESTORE. */
  expired: number;
  /** Keys under the prefix the target held (dropped first with `replace`). */
  targetHad: number;
  /** After a real copy: the target checked against what was written. */
  verification?: Verification;
}

interface SourceKey {
  source: string;
  target: string;
  type: string;
  pttl: number;
  sentAt: number;
  dump?: Buffer | null;
  /** A key from before the tags whose tagged name exists on the source too. */
  shadowed: boolean;
}

const MAX_NAMED_PROBLEMS = 20;

export async function copyDeployment(source: RedisClient, target: RedisClient, prefix: string, options: CopyOptions = {}): Promise<CopyReport> {
  const batchSize = options.batchSize ?? 500;
  const pattern = redisKeys(prefix).everything;
  await refuseSameServer(source, target);
  const targetHad = await countKeys(target, pattern);
  if (targetHad > 0 && !options.replace) {
    throw new CopyRefused(`the target already holds ${targetHad} keys under ${prefix} (pass --replace to drop them and copy over them)`);
  }
  const report: CopyReport = { scanned: 0, copied: 0, copiedByType: {}, renamed: 0, skipped: [], expired: 0, targetHad };
  const reader = duplicateClient(source, { enableAutoPipelining: true });
  const writer = duplicateClient(target, { enableAutoPipelining: true });
  /** Target name -> type and expiry deadline of every key written (SCAN may return a key twice). */
  const written = new Map<string, { type: string; deadline?: number }>();
  try {
    if (targetHad > 0 && !options.dryRun) await scanKeys(target, pattern, (keys) => deleteKeys(writer, keys), batchSize);
    await scanKeys(
      source,
      pattern,
      async (keys) => {
        report.scanned += keys.length;
        const batch = await readKeys(reader, prefix, keys, !options.dryRun);
        await Promise.all(batch.map((key) => copyKey(writer, key, report, written, options)));
        options.onProgress?.({ scanned: report.scanned, copied: report.copied });
      },
      batchSize,
    );
    if (!options.dryRun) report.verification = await verify(writer, pattern, written, batchSize);
  } finally {
    reader.disconnect();
    writer.disconnect();
  }
  return report;
}

async function readKeys(source: RedisClient, prefix: string, keys: string[], withDump: boolean): Promise<SourceKey[]> {
  const sentAt = Date.now();
  return Promise.all(
    keys.map(async (key) => {
      const tagged = taggedName(prefix, key);
      const [type, pttl, dump, twin] = await Promise.all([
        source.type(key),
        source.pttl(key),
        withDump ? source.dumpBuffer(key) : undefined,
        tagged ? source.exists(tagged) : 0,
      ]);
      return { source: key, target: tagged ?? key, type, pttl, sentAt, dump, shadowed: twin === 1 };
    }),
  );
}

async function copyKey(
  target: RedisClient,
  key: SourceKey,
  report: CopyReport,
  written: Map<string, { type: string; deadline?: number }>,
  options: CopyOptions,
): Promise<void> {
  if (key.shadowed) {
    report.skipped.push({ key: key.source, reason: `${key.target} exists on the source too (written since the hash tags); that one is copied` });
    return;
  }
  if (written.has(key.target)) return; // SCAN returned it again
  // -2 (or no DUMP, or a type of "none"): the key expired (or was deleted) after the SCAN.
  if (key.pttl === -2 || key.type === 'none' || key.dump === null) {
    report.expired += 1;
    return;
  }
  const remaining = key.pttl >= 0 ? key.pttl - (Date.now() - key.sentAt) : undefined;
  if (remaining !== undefined && remaining <= 0) {
    report.expired += 1;
    return;
  }
  written.set(key.target, { type: key.type, deadline: remaining === undefined ? undefined : Date.now() + remaining });
  // RESTORE without REPLACE: a key written to the target meanwhile fails the copy instead of being overwritten.
  if (key.dump) {
    await target.restore(key.target, remaining ?? 0, key.dump).catch((err: unknown) => {
      throw new Error(`RESTORE ${key.target}: ${(err as Error).message}`);
    });
  }
  report.copied += 1;
  report.copiedByType[key.type] = (report.copiedByType[key.type] ?? 0) + 1;
  if (key.target !== key.source) report.renamed += 1;
  options.onKey?.({ source: key.source, target: key.target, type: key.type, ttlMs: key.pttl >= 0 ? key.pttl : undefined });
}

/** The target's keys under the prefix are exactly the keys written, each of the type it had. */
async function verify(target: RedisClient, pattern: string, written: Map<string, { type: string; deadline?: number }>, batchSize: number): Promise<Verification> {
  const result: Verification = { targetKeys: 0, problems: [], expiredSince: 0 };
  const problems: string[] = [];
  const seen = new Set<string>();
  await scanKeys(
    target,
    pattern,
    async (keys) => {
      const types = await Promise.all(keys.map((key) => target.type(key)));
      keys.forEach((key, i) => {
        if (seen.has(key)) return;
        seen.add(key);
        result.targetKeys += 1;
        const expected = written.get(key);
        if (!expected) problems.push(`${key}: on the target but not copied`);
        else if (types[i] !== expected.type && types[i] !== 'none') problems.push(`${key}: ${types[i]} on the target, ${expected.type} on the source`);
      });
    },
    batchSize,
  );
  const now = Date.now();
  for (const [key, { deadline }] of written) {
    if (seen.has(key)) continue;
    if (deadline !== undefined && deadline <= now + 50) result.expiredSince += 1;
    else problems.push(`${key}: copied but missing on the target`);
  }
  result.problems = problems.length > MAX_NAMED_PROBLEMS ? [...problems.slice(0, MAX_NAMED_PROBLEMS), `... and ${problems.length - MAX_NAMED_PROBLEMS} more`] : problems;
  return result;
}

async function countKeys(redis: RedisClient, pattern: string): Promise<number> {
  let count = 0;
  await scanKeys(redis, pattern, async (keys) => void (count += keys.length));
  return count;
}

/** Source and target being one server (under two names) would copy a deployment onto itself. */
async function refuseSameServer(source: RedisClient, target: RedisClient): Promise<void> {
  const [from, to] = await Promise.all([runIds(source), runIds(target)]);
  if (from.some((id) => to.includes(id))) throw new CopyRefused('the source and the target are the same Redis server');
}

async function runIds(redis: RedisClient): Promise<string[]> {
  await redis.ping(); // a Cluster client knows its nodes once connected
  const servers = redis instanceof Cluster ? redis.nodes('all') : [redis];
  const infos = await Promise.all(servers.map((server) => server.info('server')));
  return infos.map((info) => /run_id:([0-9a-f]+)/.exec(info)?.[1]).filter((id): id is string => id !== undefined);
}
