/**
 * Every relative link of the README, docs/ and lab/ Markdown resolves: the file exists and, with a
 * `#fragment`, the target Markdown file has a heading of that anchor (GitHub's slugs).
 *
 *   npx tsx lab/tools/checkLinks.ts      prints each broken link, exits 1 when there is one
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Markdown without its fenced code blocks and inline code spans (links there are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchors of a file's headings, duplicates numbered as GitHub does. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const words = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = words.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs')), ...markdownFiles(join(ROOT, 'lab'))];
const anchorCache = new Map<string, Set<string>>();
const broken: string[] = [];
for (const file of files) {
  const text = prose(readFileSync(file, 'utf8'));
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path = '', fragment] = target.split('#');
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = relative(ROOT, file);
    if (!existsSync(resolved)) {
      broken.push(`${where}: ${target} (no such file)`);
      continue;
    }
    if (fragment && resolved.endsWith('.md')) {
      let known = anchorCache.get(resolved);
      if (!known) anchorCache.set(resolved, (known = anchors(readFileSync(resolved, 'utf8'))));
      if (!known.has(decodeURIComponent(fragment).toLowerCase())) broken.push(`${where}: ${target} (no heading #${fragment})`);
    }
  }
}
for (const line of broken) process.stdout.write(`${line}\n`);
process.stdout.write(`${files.length} files, ${broken.length} broken links\n`);
process.exit(broken.length === 0 ? 0 : 1);
