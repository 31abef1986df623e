/**
 * Shows or changes the ranking tunables of the live listing index (docs/catalog-reads.md).
 *
 *   npm run ranking                               print every tunable
 *   npm run ranking -- set recency.scale 3d       change one (validated first)
 *   npm run ranking -- set fields.describe.title 5
 *   npm run ranking -- set bm25.k1 1.4            closes and reopens the index for a moment
 *   npm run ranking -- synonyms add "sms, text message"
 *   npm run ranking -- synonyms remove 3          (the group's number in the listing)
 *
 * Uses ELASTICSEARCH_URL and LISTINGS_ALIAS like the service. Running services pick a change up
 * within RANKING_REFRESH_MS (default 5 s).
 */
import { loadConfig } from '../src/config/index.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { changeSynonyms, flattenRanking, RankingChangeError, setRanking, showRanking } from '../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

const USAGE = 'usage: npm run ranking [-- set <key> <value> | synonyms add "<phrase>, <phrase>, ..." | synonyms remove <n>]';

function print(rows: Array<[string, string | number]>): void {
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${value}`);
}

async function main(args: string[]): Promise<number> {
  const config = loadConfig();
  const client = createElasticsearchClient(config.elasticsearchUrl);
  try {
    if (args.length === 0) {
      const { index, settings, problems } = await showRanking(new RankingTunablesIndex(client, config.listingsAlias));
      console.log(`ranking tunables of ${config.listingsAlias} (index ${index}):`);
      if (settings) print(flattenRanking(settings));
      if (problems.length > 0) {
        console.error(`the stored tunables are invalid (the service keeps its last good ones):\n  ${problems.join('\n  ')}`);
        return 1;
      }
      return 0;
    }
    if (args[0] === 'synonyms' && args.length === 3 && (args[1] === 'add' || (args[1] === 'remove' && /^\d+$/.test(args[2]!)))) {
      const change = args[1] === 'add' ? { add: args[2]! } : { remove: Number(args[2]) };
      const settings = await changeSynonyms(new RankingTunablesIndex(client, config.listingsAlias), change);
      console.log(`synonyms changed on ${config.listingsAlias}; services apply it within ${config.rankingRefreshMs} ms. Now:`);
      print(flattenRanking(settings));
      return 0;
    }
    if (args[0] !== 'set' || args.length !== 3) {
      console.error(USAGE);
      return 2;
    }
    const [, key, value] = args as [string, string, string];
    const settings = await setRanking(new RankingTunablesIndex(client, config.listingsAlias), key, value);
    console.log(`set ${key} = ${value} on ${config.listingsAlias}; services apply it within ${config.rankingRefreshMs} ms. Now:`);
    print(flattenRanking(settings));
    return 0;
  } catch (err) {
    if (err instanceof RankingChangeError) {
      console.error(`refused, nothing changed:\n  ${err.problems.join('\n  ')}`);
      return 1;
    }
    throw err;
  } finally {
    await client.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
