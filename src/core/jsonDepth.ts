/**
 * Nesting depth of parsed JSON, measured without recursion. Deeply nested input is cheap to send
 * (a 64 KiB body holds 32,000 nested arrays) and overflows the stack of any recursive walk
 * (JSON.stringify, schema validators, canonical hashing); Elasticsearch refuses documents nested
 * deeper than 1000. Callers bound depth with this before anything recursive sees the value.
 */

interface Frame {
  value: unknown;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

function pathOf(frame: Frame): string[] {
  const path: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Whether any container is nested deeper than `maxDepth`: the same walk as pathBeyondDepth without
 * its frames and entry arrays (every listing write goes through it; almost none is too deep).
 */
function nestsBeyond(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    if (Array.isArray(current)) {
      for (const child of current as unknown[]) {
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        const child = (current as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * The path (keys and array indexes) to the first container nested deeper than `maxDepth`, the
 * value itself counting as depth 1 when it is an object or array; `undefined` when none is.
 */
export function pathBeyondDepth(value: unknown, maxDepth: number): string[] | undefined {
  if (!nestsBeyond(value, maxDepth)) return undefined;
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth > maxDepth) return pathOf(frame);
    const entries: Array<[string, unknown]> = Array.isArray(current)
      ? current.map((item, index) => [String(index), item])
      : Object.entries(current as Record<string, unknown>);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}

/** Dotted form of a path for error messages, cut after `keep` segments. */
export function dottedPath(path: string[], keep = 12): string {
  return path.length > keep ? `${path.slice(0, keep).join('.')}…` : path.join('.');
}
