/**
 * One HTTP/1.1 exchange over a bare socket, so a fuzzer can send bytes no HTTP client would (bad
 * UTF-8 in the path, contradictory headers): writes the request with `Connection: close` and reads
 * the status line of whatever comes back before the server closes (or the deadline passes).
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Request target as raw bytes (latin1 string): may be any byte sequence without CR/LF. */
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
}

export interface RawAnswer {
  /** HTTP status, or 0 when nothing parseable came back (connection reset, timeout). */
  status: number;
  /** The start of the response body, for reports. */
  excerpt: string;
  timedOut: boolean;
}

export function rawExchange(port: number, request: RawRequest, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      resolve({ status, excerpt: body.slice(0, 300), timedOut });
    });
    socket.on('connect', () => {
      const head = [`${request.method} ${request.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...request.headers.map(([k, v]) => `${k}: ${v}`)];
      socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), request.body ?? Buffer.alloc(0)]));
    });
  });
}
