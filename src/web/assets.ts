/**
 * The web client's built files (`npm run build:web` writes them to dist/web: scripts/build-web.ts).
 * Read once and kept in memory with a content hash for ETag; absent until the client is built.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  etag: string;
}

/** dist/web seen from src/web (tsx: tests, scripts) and from dist/src/web (the built server). */
const CANDIDATE_DIRS = ['../../dist/web/', '../../web/'].map((dir) => fileURLToPath(new URL(dir, import.meta.url)));

export function webAssetDir(): string {
  return CANDIDATE_DIRS.find((dir) => existsSync(`${dir}app.js`)) ?? CANDIDATE_DIRS[0]!;
}

export class WebAssets {
  private readonly cache = new Map<string, Asset>();

  constructor(private readonly dir: () => string = webAssetDir) {}

  /** `undefined` while the client is not built; retried on the next request, so a later build is picked up. */
  get(name: 'app.js' | 'app.css'): Asset | undefined {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const path = `${this.dir()}${name}`;
    if (!existsSync(path)) return undefined;
    const body = readFileSync(path);
    const asset = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    this.cache.set(name, asset);
    return asset;
  }
}
