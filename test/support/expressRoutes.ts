/**
 * Every route an Express 5 app really serves, read from its router stack (mounted routers
 * included), as `METHOD /openapi/{style}` strings, so the compliance test can compare them with
 * the OpenAPI document.
 */
import type { Express } from 'express';

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/** `/discovery/resources/:id` -> `/discovery/resources/{id}` */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function walk(stack: Layer[], prefix: string, out: Set<string>): void {
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const path of paths) {
        if (typeof path !== 'string') throw new Error(`route with a non-string path under ${prefix || '/'}: describe it by hand`);
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') out.add(`${method.toUpperCase()} ${toOpenApiPath(prefix + path)}`);
        }
      }
    } else if (layer.handle?.stack) {
      if (!layer.slash && typeof layer.rawPath !== 'string') throw new Error('a router mounted on a pattern: cannot read its path');
      walk(layer.handle.stack, layer.slash ? prefix : prefix + String(layer.rawPath), out);
    }
  }
}

export function expressRoutes(app: Express): Set<string> {
  const out = new Set<string>();
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}
