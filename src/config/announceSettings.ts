/** Probes, active health checks and staleness (src/announce): their settings from the environment. */
import { commaList, type EnvReader } from './envReader.js';

export interface AnnounceSettings {
  /** PROBE_ALLOW: CIDRs or host:port the probe may reach although they are not public. */
  probeAllow: string[];
  probeTimeoutMs: number;
  probeMaxBodyBytes: number;
  /** One URL is probed at most once per this interval, however often it is announced. */
  probeMinIntervalMs: number;
  probeConcurrency: number;
  /** Probes per second to one host (all instances); announce is open, so it must not become a way to flood a site. */
  probeHostRatePerSecond: number;
  /** Listed resources are re-probed about this often (spread +-10%). */
  reprobeIntervalMs: number;
  /** Consecutive transient probe failures (timeout, refused, 5xx) before a listing is removed. */
  probeFailuresBeforeRemoval: number;
  /**
   * Active health (issue 13): a listed resource settled in the last 7 days is re-checked this often,
   * any other listed resource `healthIdleIntervalMs`; each check is a re-probe (at most
   * `reprobeIntervalMs` apart either way).
   */
  healthActiveIntervalMs: number;
  healthIdleIntervalMs: number;
  /**
   * MCP_CHECK_SCHEME: how an MCP tool's server (`mcp://host/tool`) is reached for its health check,
   * at `<scheme>://host/mcp` (the seller SDK's Streamable HTTP path). https unless a local setup says http.
   */
  mcpCheckScheme: 'https' | 'http';
  /** Listings with neither a 402 report nor a settlement for this long are removed as stale. */
  staleAfterMs: number;
  staleSweepIntervalMs: number;
}

const ALLOW_ENTRY = /^(?:[0-9a-fA-F:.]+\/\d{1,3}|(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5})$/;

export function readAnnounceSettings(read: EnvReader): AnnounceSettings {
  const allow = read.string('PROBE_ALLOW', '', (v) => {
    const bad = commaList(v).filter((e) => !ALLOW_ENTRY.test(e));
    return bad.length ? `entries must be CIDRs (10.0.0.0/8) or host:port (127.0.0.1:4021); not ${bad.join(', ')}` : undefined;
  });
  const settings: AnnounceSettings = {
    probeAllow: commaList(allow),
    probeTimeoutMs: read.integer('PROBE_TIMEOUT_MS', 3000, 50, 30_000),
    probeMaxBodyBytes: read.integer('PROBE_MAX_BODY_BYTES', 64 * 1024, 1024, 1024 * 1024),
    probeMinIntervalMs: read.integer('PROBE_MIN_INTERVAL_MS', 60_000, 0, 86_400_000),
    probeConcurrency: read.integer('PROBE_CONCURRENCY', 16, 1, 256),
    probeHostRatePerSecond: read.integer('PROBE_HOST_RATE', 20, 1, 100_000),
    reprobeIntervalMs: read.integer('REPROBE_INTERVAL_MS', 86_400_000, 60_000, 30 * 86_400_000),
    probeFailuresBeforeRemoval: read.integer('PROBE_FAILURES_BEFORE_REMOVAL', 3, 1, 100),
    healthActiveIntervalMs: read.integer('HEALTH_ACTIVE_INTERVAL_MS', 15 * 60_000, 60_000, 86_400_000),
    healthIdleIntervalMs: read.integer('HEALTH_IDLE_INTERVAL_MS', 6 * 3_600_000, 60_000, 30 * 86_400_000),
    mcpCheckScheme: read.oneOf('MCP_CHECK_SCHEME', 'https', ['https', 'http'] as const),
    staleAfterMs: read.integer('STALE_AFTER_DAYS', 30, 1, 3650) * 86_400_000,
    staleSweepIntervalMs: read.integer('STALE_SWEEP_INTERVAL_MS', 60_000, 1000, 86_400_000),
  };
  // Active listings are the ones buyers use: checking them less often than idle ones is a typo.
  if (settings.healthActiveIntervalMs > settings.healthIdleIntervalMs) {
    read.problems.push(
      `HEALTH_ACTIVE_INTERVAL_MS=${settings.healthActiveIntervalMs}: must not exceed HEALTH_IDLE_INTERVAL_MS (${settings.healthIdleIntervalMs})`,
    );
  }
  return settings;
}

