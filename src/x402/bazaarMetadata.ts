/**
 * The Bazaar service metadata of a paid resource (x402 `specs/extensions/bazaar.md`, "Service
 * Metadata on `resource`", and the bazaar extension's `routeTemplate` and MCP tool key), read one
 * way wherever the catalog meets it: a probed 402 challenge, a /verify or /settle payload, and a
 * seller's publish. `serviceName`, `tags` and `iconUrl` go through @x402/extensions' own sanitizer
 * (the rules the x402 facilitators share: printable ASCII, at most 32 characters, at most 5 tags,
 * an icon URL that is absolute http(s), without credentials, not an IP literal or loopback host);
 * a value that fails is dropped, not an error, as the spec says. The icon URL is then cleaned to its
 * parsed form (no surrounding spaces, scheme and host lower-case).
 */
import { sanitizeResourceServiceMetadata } from '@x402/extensions/bazaar';
import { isObject } from '../core/json.js';
import { isValidRouteTemplate } from './routeTemplate.js';

export interface BazaarMetadata {
  /** `resource.serviceName`: the listing's title. */
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  /** `extensions.bazaar.routeTemplate` when it is a path template (x402/routeTemplate.ts). */
  routeTemplate?: string;
  /** Set when a routeTemplate was declared but is not a path template (the probe refuses such a 402). */
  invalidRouteTemplate?: string;
  /** MCP: the tool's name, `info.input.toolName` or the spec's older key `info.input.tool`. */
  toolName?: string;
}

/** `https://Icons.Example.com/a.png ` -> `https://icons.example.com/a.png`; undefined unless http(s). */
export function cleanIconUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  const { iconUrl } = sanitizeResourceServiceMetadata({ url: '', iconUrl: trimmed });
  if (iconUrl === undefined) return undefined;
  try {
    const url = new URL(iconUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `resource`: the x402 v2 `ResourceInfo` (a 402's or a payload's `resource`), or a publish body's
 * `{serviceName, tags, iconUrl}`; `bazaar`: the `extensions.bazaar` object, when there is one.
 */
export function bazaarMetadataOf(resource: unknown, bazaar: unknown): BazaarMetadata {
  const out: BazaarMetadata = {};
  if (isObject(resource)) {
    const { serviceName, tags } = sanitizeResourceServiceMetadata({
      url: '',
      ...(resource.serviceName !== undefined ? { serviceName: resource.serviceName as string } : {}),
      ...(resource.tags !== undefined ? { tags: resource.tags as string[] } : {}),
    });
    if (serviceName !== undefined) out.serviceName = serviceName;
    if (tags !== undefined) out.tags = tags;
    const iconUrl = cleanIconUrl(resource.iconUrl);
    if (iconUrl !== undefined) out.iconUrl = iconUrl;
  }
  if (!isObject(bazaar)) return out;
  const template = bazaar.routeTemplate;
  if (typeof template === 'string' && template.length > 0) {
    if (isValidRouteTemplate(template)) out.routeTemplate = template;
    else out.invalidRouteTemplate = template.slice(0, 512);
  }
  const input = isObject(bazaar.info) && isObject(bazaar.info.input) ? bazaar.info.input : undefined;
  if (input?.type === 'mcp') {
    const toolName = [input.toolName, input.tool].find((name): name is string => typeof name === 'string' && name.length > 0);
    if (toolName !== undefined) out.toolName = toolName;
  }
  return out;
}
