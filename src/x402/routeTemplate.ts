/**
 * x402 `routeTemplate` (`/users/:userId` or `/users/{userId}`). A template widens what a listing
 * covers, so the probe only accepts one that the probed path is an instance of: otherwise an
 * announcer could probe `/paid` and list `/anything`.
 */
const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z0-9._~!$&'()*+,;=@%-]*)$/;

export function isValidRouteTemplate(template: string): boolean {
  if (!template.startsWith('/') || template.length > 512) return false;
  const segments = template.slice(1).split('/');
  return segments.every((s) => SEGMENT.test(s) && s !== '..' && s !== '.');
}

const isParameter = (segment: string) => segment.startsWith(':') || (segment.startsWith('{') && segment.endsWith('}'));

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** True when `path` (a concrete URL path) is an instance of `template`. */
export function templateMatchesPath(template: string, path: string): boolean {
  const want = template.slice(1).split('/');
  const got = path.replace(/^\//, '').split('/');
  if (want.length !== got.length) return false;
  return want.every((segment, i) => {
    const actual = got[i]!;
    return isParameter(segment) ? actual.length > 0 : decode(segment) === decode(actual);
  });
}
