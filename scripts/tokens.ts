/**
 * Operator command for seller tokens (same REDIS_URL / REDIS_PREFIX as the service):
 *   npm run tokens -- issue --host api.example.com [--host other.example.com] [--label acme]
 *   npm run tokens -- list [--json]
 *   npm run tokens -- revoke tok_0123456789abcdef
 * `issue` prints the token once; only its sha256 is stored.
 */
import { InvalidTokenRequestError, SellerTokenStore, type SellerToken } from '../src/publish/sellerTokens.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { fail, loadConfigOrFail, parseCommandLine } from '../src/cli/options.js';
import { SellerTokenRecords } from '../src/store/redis/sellerTokens.js';

const USAGE = `usage:
  tokens issue --host HOST [--host HOST ...] [--label NAME]
  tokens list [--json]
  tokens revoke TOKEN_ID`;

function row(token: SellerToken): string {
  return [token.id, token.label ?? '-', token.hosts.join(','), token.createdAt, token.revokedAt ?? '-'].join('\t');
}

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(
    {
      allowPositionals: true,
      options: { host: { type: 'string', multiple: true }, label: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    },
    USAGE,
  );
  const [command, ...rest] = positionals;
  if (values.help || !command) fail(USAGE, values.help ? 0 : 2);

  const config = loadConfigOrFail();
  const redis = createRedisClient(config.redisUrl);
  redis.on('error', () => {});
  const store = new SellerTokenStore(new SellerTokenRecords(redis, config.redisPrefix));
  try {
    switch (command) {
      case 'issue': {
        if (rest.length > 0) fail(`unexpected argument ${rest[0]}\n${USAGE}`);
        const { token, secret } = await store.issue(values.host ?? [], values.label);
        process.stderr.write(`issued ${token.id} for ${token.hosts.join(', ')}; the token is shown only now:\n`);
        process.stdout.write(`${secret}\n`);
        break;
      }
      case 'list': {
        const tokens = await store.list();
        if (values.json) {
          process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
        } else {
          process.stdout.write(`id\tlabel\thosts\tcreated\trevoked\n${tokens.map(row).join('\n')}${tokens.length ? '\n' : ''}`);
        }
        break;
      }
      case 'revoke': {
        const id = rest[0];
        if (!id || rest.length > 1) fail(`revoke takes one token id\n${USAGE}`);
        const token = await store.revoke(id);
        if (!token) fail(`no token with id ${id}`, 1);
        process.stdout.write(`revoked ${token.id} at ${token.revokedAt}\n`);
        break;
      }
      default:
        fail(`unknown command ${command}\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof InvalidTokenRequestError) fail(err.message);
    fail(`tokens: ${(err as Error).message} (is Redis running at ${config.redisUrl}?)`, 1);
  } finally {
    redis.disconnect();
  }
}

await main();
