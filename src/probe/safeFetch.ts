/**
 * One outgoing HTTP request that an anonymous announcer cannot turn against us: http(s) only, the
 * host resolved once and every address checked (ProbeAllowList for exceptions), the connection
 * made to that checked address (no second resolution an attacker's DNS could change), redirects
 * not followed, one deadline for the whole exchange, and a cap on what is read.
 */
import { lookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { unmapIPv4 } from '../core/ipAddress.js';
import { mayConnect, type ProbeAllowList } from './addressPolicy.js';

/**
 * What a failed fetch tells the caller, who may be anyone (announce status, the Bazaar outcome of a
 * payment, an origin report, a listing's provenance). `unreachable` is one reason for a refused,
 * reset or timed-out connection and a TLS failure: told apart, they would port-scan hosts nobody
 * proved they own through us (issue 43). A blocked address names no resolution: the service's own
 * view of internal names is nobody's business. `internal` keeps the exact cause for the logs.
 */
export type FetchFailureReason = 'invalid_url' | 'blocked_address' | 'dns_failure' | 'unreachable' | 'body_too_large';

export const BLOCKED_ADDRESS_DETAIL = 'the host is or resolves to a private address; only public addresses are probed';
export const UNREACHABLE_DETAIL = 'no answer from the host within the probe timeout (refused, reset, timed out or a TLS failure)';

export class FetchFailure extends Error {
  constructor(readonly reason: FetchFailureReason, detail: string, readonly internal: string = detail) {
    super(detail);
    this.name = 'FetchFailure';
  }
}

const unreachable = (internal: string) => new FetchFailure('unreachable', UNREACHABLE_DETAIL, internal);

export interface SafeFetchOptions {
  allowList: ProbeAllowList;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Read the body only for these statuses; other answers are judged by status and headers alone. */
  readBodyFor?: (status: number) => boolean;
  headers?: Record<string, string>;
  /** A request body (the MCP health check's JSON-RPC); none otherwise. */
  body?: string;
  /**
   * The address resolveFetchTarget already checked for this URL: connected to as is, with no second
   * resolution (the probe paces per resolved address, then fetches what it paced).
   */
  pinned?: CheckedAddress;
}

export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The address actually connected to, for the status record. */
  address: string;
}

export async function safeFetch(method: string, rawUrl: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const { url, hostname, port } = fetchTarget(rawUrl);
  const deadline = Date.now() + options.timeoutMs;
  const target = options.pinned ?? (await withDeadline(resolveChecked(hostname, port, options.allowList), deadline, 'DNS resolution'));
  return withDeadline(request(method, url, target, options, deadline), deadline, 'the response');
}

/**
 * The checked address a fetch of `rawUrl` would connect to (FetchFailure when none may be): what
 * the probe paces by. Pacing per host name let wildcard DNS aim a thousand names at one address
 * (issue 43); per resolved address, they share one budget.
 */
export async function resolveFetchTarget(rawUrl: string, allowList: ProbeAllowList, timeoutMs: number): Promise<CheckedAddress> {
  const { hostname, port } = fetchTarget(rawUrl);
  return withDeadline(resolveChecked(hostname, port, allowList), Date.now() + timeoutMs, 'DNS resolution');
}

/** The URL, host name and port a fetch would use; FetchFailure `invalid_url` for what is never fetched. */
export function fetchTarget(rawUrl: string): { url: URL; hostname: string; port: number } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchFailure('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchFailure('invalid_url', 'only http and https are probed');
  if (url.username || url.password) throw new FetchFailure('invalid_url', 'URLs with credentials are not probed');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return { url, hostname: url.hostname.replace(/^\[|\]$/g, ''), port };
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

async function resolveChecked(hostname: string, port: number, allowList: ProbeAllowList): Promise<CheckedAddress> {
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await lookup(hostname, { all: true, verbatim: true });
    } catch (err) {
      throw new FetchFailure('dns_failure', 'the host name does not resolve', `${hostname}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (addresses.length === 0) throw new FetchFailure('dns_failure', 'the host name does not resolve', `${hostname} has no address`);
  }
  // Every address must pass: a name that also resolves to a private address is refused outright.
  const refused = addresses.find((a) => !mayConnect(a.address, port, hostname, allowList));
  if (refused) {
    throw new FetchFailure('blocked_address', BLOCKED_ADDRESS_DETAIL, `${hostname} resolves to ${unmapIPv4(refused.address)}`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function request(method: string, url: URL, target: CheckedAddress, options: SafeFetchOptions, deadline: number): Promise<SafeResponse> {
  // The socket connects to the address checked above; Host and TLS SNI still carry the name.
  const pinnedLookup = ((_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<SafeResponse>((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method,
        lookup: pinnedLookup,
        agent: false,
        // Ends the socket at the deadline, however slowly the seller trickles bytes.
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        maxHeaderSize: 64 * 1024,
        headers: { 'User-Agent': 'x402-discovery-probe/1', Accept: 'application/json', ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body ?? '')) },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (!(options.readBodyFor?.(status) ?? true)) {
          res.destroy();
          resolve({ status, headers: res.headers, body: Buffer.alloc(0), address: target.address });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
          res.destroy();
          reject(new FetchFailure('body_too_large', `the body declares ${declared} bytes; the limit is ${options.maxBodyBytes}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBodyBytes) {
            res.destroy();
            reject(new FetchFailure('body_too_large', `the body exceeds ${options.maxBodyBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks), address: target.address }));
        res.on('error', (err) => reject(unreachable(err.message)));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(unreachable(err.name === 'AbortError' ? 'timeout' : `${err.code ?? 'error'}: ${err.message}`));
    });
    req.end(options.body);
  });
}

function withDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  const remaining = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unreachable(`timeout waiting for ${what}`)), remaining);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
