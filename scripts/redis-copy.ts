/**
 * Copies a deployment's Redis keys (everything under REDIS_PREFIX) from its Redis (REDIS_URL, as for
 * the service) into a Redis Cluster or another Redis, with the Cluster hash-tagged names
 * (scripts/lib/redisCopy.ts). Run it with the gateways stopped (docs/elasticsearch-cluster.md).
 *   npm run redis:copy -- --to redis+cluster://10.0.0.5:7000,10.0.0.6:7000 [--replace] [--dry-run]
 *   npm run redis:copy -- --to 10.0.0.5:7000,10.0.0.6:7000      (REDIS_CLUSTER_NODES style: a Cluster)
 *   npm run redis:copy -- --to redis://other-host:6379           (another single Redis)
 * Progress on stderr; the summary (and with --dry-run, every key) on stdout. Exit 1 when the copy
 * is refused, fails, or the check of the target finds a difference; 2 on a usage error.
 */
import { CLUSTER_SCHEME, clusterUrl, redisUrlProblem } from '../src/core/redisTarget.js';
import { createRedisClient, redisAnswers, type RedisClient } from '../src/store/redis/client.js';
import { copyDeployment, CopyRefused, type CopyReport } from './lib/redisCopy.js';
import { fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from '../src/cli/options.js';

const USAGE = 'usage: redis:copy --to <redis+cluster://host:port,... | host:port,host:port | redis://host:port> [--replace] [--dry-run] [--batch N]';

const { values } = parseCommandLine(
  {
    options: {
      to: { type: 'string' },
      replace: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      batch: { type: 'string', default: '500' },
      help: { type: 'boolean', short: 'h' },
    },
  },
  USAGE,
);

/** A URL as given, or a REDIS_CLUSTER_NODES-style list as its redis+cluster:// URL. */
function targetUrl(to: string | undefined): string {
  if (!to?.trim()) return fail(`--to is required\n${USAGE}`);
  const url = /^(rediss?|redis\+cluster):/.test(to) ? to : clusterUrl(to);
  const problem = redisUrlProblem(url);
  if (problem) fail(`--to ${problem}`);
  return url;
}

/** For messages: a URL without its password. */
function shown(url: string): string {
  if (url.startsWith(CLUSTER_SCHEME)) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function connect(url: string, role: string): Promise<RedisClient> {
  const client = createRedisClient(url);
  client.on('error', () => {});
  if (!(await redisAnswers(client, 5000))) fail(`cannot reach the ${role} Redis at ${shown(url)}`, 1);
  return client;
}

function summary(report: CopyReport, prefix: string, dryRun: boolean): string {
  const byType = Object.entries(report.copiedByType).map(([type, n]) => `${type} ${n}`).join(', ') || 'none';
  const lines = [
    `${dryRun ? 'would copy' : 'copied'} ${report.copied} keys under ${prefix} (${byType}); ${report.scanned} scanned`,
    `renamed to their hash-tagged names: ${report.renamed}; skipped: ${report.skipped.length}; expired during the copy: ${report.expired}`,
  ];
  if (report.targetHad > 0) lines.push(`${dryRun ? 'would drop' : 'dropped'} ${report.targetHad} keys the target held under ${prefix} (--replace)`);
  for (const { key, reason } of report.skipped.slice(0, 20)) lines.push(`  skipped ${key}: ${reason}`);
  const check = report.verification;
  if (check) {
    lines.push(
      check.problems.length === 0
        ? `verified: the target holds ${check.targetKeys} keys under ${prefix}, each of the type it had${check.expiredSince ? ` (${check.expiredSince} expired since, as on the source)` : ''}`
        : `VERIFY FAILED: the target holds ${check.targetKeys} keys under ${prefix}:\n${check.problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

runMain('redis:copy', async () => {
  if (values.help) fail(USAGE, 0);
  const to = targetUrl(values.to);
  const batchSize = numberOption('batch', values.batch, { max: 10_000 });
  const config = loadConfigOrFail();
  const dryRun = values['dry-run'];
  const source = await connect(config.redisUrl, 'source');
  const target = await connect(to, 'target');
  const started = Date.now();
  let lastLine = 0;
  let differs = false;
  try {
    const report = await copyDeployment(source, target, config.redisPrefix, {
      replace: values.replace,
      dryRun,
      batchSize,
      onKey: dryRun ? (k) => process.stdout.write(`${k.type}\t${k.ttlMs === undefined ? '-' : `${k.ttlMs}ms`}\t${k.source}${k.target === k.source ? '' : ` -> ${k.target}`}\n`) : undefined,
      onProgress: ({ scanned, copied }) => {
        if (Date.now() - lastLine < 500) return;
        lastLine = Date.now();
        const rate = copied / Math.max((Date.now() - started) / 1000, 0.001);
        process.stderr.write(`${shown(config.redisUrl)} -> ${shown(to)}: ${scanned} scanned, ${copied} ${dryRun ? 'to copy' : 'copied'} (${Math.round(rate)}/s)\n`);
      },
    });
    process.stdout.write(summary(report, config.redisPrefix, dryRun));
    process.stderr.write(`took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    differs = (report.verification?.problems.length ?? 0) > 0;
  } catch (err) {
    if (err instanceof CopyRefused) fail(`redis:copy refused: ${err.message}`, 1);
    // Part of the keys may be on the target already: a new attempt needs --replace.
    fail(`redis:copy failed: ${(err as Error).message}${dryRun ? '' : ' (the target may hold part of the copy; run again with --replace)'}`, 1);
  } finally {
    source.disconnect();
    target.disconnect();
  }
  if (differs) fail('redis:copy: the target does not match the source (see above)', 1);
});
