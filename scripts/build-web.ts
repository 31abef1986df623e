/**
 * Builds the web catalog's client (src/web/client, TypeScript + preact) into dist/web/app.js and
 * app.css with esbuild: one ES module and one stylesheet, no CDN, served by src/http/routes/web.ts.
 * Part of `npm run build`; scripts/test.sh and scripts/dev.sh run it too.
 *   npm run build:web
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function buildWebClient(): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: { app: 'src/web/client/main.tsx' },
    outdir: 'dist/web',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  await buildWebClient();
  process.stderr.write(`[build:web] dist/web/app.js and app.css in ${Date.now() - started} ms\n`);
}
