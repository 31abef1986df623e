/**
 * A V8 CPU profile (`node --cpu-prof`, the .cpuprofile JSON) of the gateway, charged to the parts
 * of a read's path (lab/bench/gateway-profile.ts). Each sample goes to the innermost frame of its
 * stack that is the service's own code or a package (node's core and V8 builtins are charged to
 * the code that called them: a `JSON.parse` in searchHttp.ts is the ES answer's parse); a sample
 * with neither (the HTTP server's parser, timers) to node's module; GC to its own part. A
 * builtin JSON call on the way is named beside its part, since those are what a cut would avoid.
 */

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Path fragments of the service and its packages -> the part of the read's path they are. */
const PARTS: Array<[RegExp, string]> = [
  [/\/src\/http\/readResponse\.ts/, 'serialize the page (JSON.stringify, res.end)'],
  [/\/src\/store\/elasticsearch\/searchHttp\.ts/, 'ES answer: read the body, JSON.parse (searchHttp)'],
  [/\/src\/store\/elasticsearch\/listingSearch\.ts/, 'ES request: body JSON, query string (listingSearch)'],
  [/\/src\/search\/(readGrammar|readValues|readRequest|payableParameters)\.ts/, 'parse + validate the query string'],
  [/\/src\/search\/(readPlan|readPlanner|readClauses|textQuery|queryExpansion|typoPass|rankingFactors|semanticFusion|queryBuilder|filterShare|queryDirections|inflection|abbreviations|englishWords|payableQuery|rankingCache|rankingSettings)\.ts/, 'plan + build the ES body'],
  [/\/src\/semantic\//, 'query vector (embedding cache)'],
  [/\/src\/search\/cursor\.ts|\/src\/core\/signedToken\.ts/, 'cursor (sign)'],
  [/\/src\/catalog\/listing\.ts/, 'hits -> listings (toListing)'],
  [/\/src\/search\/(catalogSearch|taskSearch|taskNeeds|explain|readCache)\.ts/, 'read orchestration (catalogSearch, taskSearch)'],
  [/\/src\/outcomes\//, 'paid-outcome look-up'],
  [/\/src\/http\/requestMetrics\.ts|\/src\/metrics\.ts|\/node_modules\/prom-client\//, 'metrics (prom-client)'],
  [/\/src\/http\/middleware\.ts/, 'request context (id, headers)'],
  [/\/src\/http\/rateLimit\.ts/, 'rate limit'],
  [/\/src\/http\/routes\//, 'route handlers'],
  [/\/src\/logger\.ts|\/node_modules\/(winston|logform|winston-transport)\//, 'logging'],
  [/\/node_modules\/undici\//, 'undici (HTTP client to ES)'],
  [/\/node_modules\/(express|router|finalhandler|qs|body-parser|on-finished|parseurl|send|serve-static|path-to-regexp|content-type|type-is|accepts|mime-types|negotiator|depd|encodeurl|escape-html|fresh|range-parser|statuses|vary|cookie|etag|proxy-addr|forwarded|ipaddr\.js|media-typer|content-disposition|merge-descriptors|safe-buffer|debug|ms|side-channel[a-z-]*|call-bind[a-z-]*|get-intrinsic|es-[a-z-]*|has-[a-z-]*|object-inspect|function-bind|dunder-proto|math-intrinsics|gopd|hasown)\//, 'Express, router, qs'],
  [/\/node_modules\/compression\//, 'compression'],
  [/\/node_modules\/ioredis\//, 'ioredis'],
  [/\/node_modules\/@elastic\//, '@elastic/elasticsearch client'],
  [/\/node_modules\/(tsx|esbuild|get-tsconfig)\//, 'tsx loader'],
];

/**
 * The service's background workers (the change feed's seeding of a new deployment, the write
 * consumer, probes, signal flushes): charged apart wherever they appear on the stack, since a
 * gateway of a fresh Redis prefix seeds its change feed while the load runs.
 */
const BACKGROUND = /\/src\/(changes\/feedSeeder|changes\/changeRecorder|catalog\/writeConsumer|probe\/|signals\/|staleness\/|federation\/|semantic\/embeddingWorker|core\/worker|store\/redis\/(writeStream|changeLog|probeStore|lease|signalStore))\b/;

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

function partOf(url: string): string | undefined {
  if (url === '' || url.startsWith('node:')) return undefined;
  for (const [pattern, name] of PARTS) if (pattern.test(url)) return name;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  const own = /\/(src\/.+)$/.exec(url);
  return own ? `other service code (${own[1]})` : `other (${url})`;
}

export interface ProfileParts {
  /** Sampled non-idle time in the window, microseconds. */
  busyUs: number;
  /** Part -> microseconds, largest first. */
  byPart: Array<[string, number]>;
  /** Self time by function, largest first. */
  topFunctions: Array<{ name: string; where: string; us: number }>;
}

/** The samples of the profile's window [end - lastMs, end - skipLastMs], charged to parts. */
export function profileParts(profile: CpuProfile, window: { lastMs: number; skipLastMs: number }): ProfileParts {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const onStack = (leaf: number, test: (url: string) => boolean): boolean => {
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) if (test(byId.get(id)!.callFrame.url)) return true;
    return false;
  };
  const partCache = new Map<number, string | undefined>();
  const chargeOf = (leaf: number): string | undefined => {
    if (partCache.has(leaf)) return partCache.get(leaf);
    const leafFrame = byId.get(leaf)!.callFrame;
    let charge: string | undefined;
    if (leafFrame.functionName === '(idle)') charge = undefined;
    else if (leafFrame.functionName === '(garbage collector)') charge = 'V8 garbage collection';
    else if (leafFrame.functionName === '(program)') charge = 'V8 (program: compiler, ICs, native)';
    else if (onStack(leaf, (url) => BACKGROUND.test(url))) charge = 'background workers (not the read path)';
    // A socket write's syscall (on loopback the kernel delivers to the receiver inside it): named
    // as such, not as the package that wrapped res.end (compression) or sent the request (undici).
    else if (SOCKET_WRITES.has(leafFrame.functionName) && leafFrame.url === '') {
      charge = onStack(leaf, (url) => url.includes('/src/http/readResponse.ts')) ? 'socket write of the page (syscall)' : 'socket write to ES (syscall)';
    }
    else {
      let json = '';
      let nodeModule: string | undefined;
      for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
        const frame = byId.get(id)!.callFrame;
        if (frame.url === '' && !json && (frame.functionName === 'parse' || frame.functionName === 'stringify')) json = `, of it JSON.${frame.functionName}`;
        if (frame.url.startsWith('node:') && !nodeModule) nodeModule = frame.url.replace(/^node:(internal\/)?/, '');
        const part = partOf(frame.url);
        if (part) {
          charge = part + json;
          break;
        }
      }
      charge ??= nodeModule ? `node core: ${nodeModule}${json}` : `builtins / native${json}`;
    }
    partCache.set(leaf, charge);
    return charge;
  };
  const from = profile.endTime - window.lastMs * 1000;
  const to = profile.endTime - window.skipLastMs * 1000;
  const parts = new Map<string, number>();
  const self = new Map<number, number>();
  let busyUs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < from || t > to) continue;
    const leaf = profile.samples[i]!;
    const charge = chargeOf(leaf);
    if (charge === undefined) continue;
    busyUs += delta;
    parts.set(charge, (parts.get(charge) ?? 0) + delta);
    self.set(leaf, (self.get(leaf) ?? 0) + delta);
  }
  const functions = new Map<string, { name: string; where: string; us: number }>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}` : '(builtin)';
    const key = `${frame.functionName}\u0000${where}`;
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  return {
    busyUs,
    byPart: [...parts].sort((a, b) => b[1] - a[1]),
    topFunctions: [...functions.values()].sort((a, b) => b.us - a.us),
  };
}
