/**
 * Keeps the ranking tunables of the live index in memory and re-reads them every
 * `rankingRefreshMs`, so a search never pays for a mapping read and an operator's change applies
 * within seconds without a restart. Nonsense written by an operator is logged and ignored: the last
 * good settings stay in force.
 */
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import { PeriodicTask } from '../core/worker.js';
import type { RankingTunablesIndex } from '../store/elasticsearch/rankingTunables.js';
import { shippedRanking, textFieldsOf, validateRanking, type RankingSettings } from './rankingSettings.js';

export class RankingCache implements BackgroundWorker {
  readonly name = 'ranking-settings';
  private settings: RankingSettings | undefined;
  private settingsJson = '';
  /** Changes whenever the settings in force change: part of the read cache's key (search/readCache.ts). */
  version = 0;
  private loading: Promise<RankingSettings> | undefined;
  private readonly task: PeriodicTask;
  private lastWarning = '';

  constructor(
    private readonly tunables: RankingTunablesIndex,
    refreshMs: number,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask(() => this.refresh(), refreshMs, (err) =>
      this.logger.debug('ranking tunables not refreshed', { err: String(err) }),
    );
  }

  /** The settings in force; the first call reads the index (and fails like a search would if it cannot). */
  async current(): Promise<RankingSettings> {
    if (this.settings) return this.settings;
    this.loading ??= this.refresh().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** Reads the index now. Invalid tunables keep the previous settings (or the shipped ones at first). */
  async refresh(): Promise<RankingSettings> {
    const stored = await this.tunables.read();
    const result = validateRanking(stored.meta.ranking, stored.similarity, textFieldsOf(stored.properties));
    if (result.settings) {
      this.adopt(result.settings);
      this.lastWarning = '';
      return this.settings!;
    }
    const warning = result.problems.join('; ');
    if (warning !== this.lastWarning) {
      this.lastWarning = warning;
      this.logger.warn('ignoring invalid ranking tunables in the index; keeping the last good settings', {
        index: stored.index,
        problems: result.problems,
      });
    }
    if (!this.settings) this.adopt(shippedRanking());
    return this.settings!;
  }

  /** Unchanged tunables keep their object: what is built per tunables object (search/textQuery.ts) stays built. */
  private adopt(settings: RankingSettings): void {
    const json = JSON.stringify(settings);
    if (json === this.settingsJson) return;
    this.settingsJson = json;
    this.version += 1;
    this.settings = settings;
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }
}
