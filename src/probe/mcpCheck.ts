/**
 * The health check of a paid MCP tool (docs/health.md): the MCP SDK's own client calls the
 * tool without payment over Streamable HTTP, and the tool is up when it answers with its payment
 * requirements (the x402 MCP transport: `_meta["x402/payment-required"]`, or the same
 * PaymentRequired as structured or text content). Every request goes through safeFetch, so the
 * check keeps the probe's SSRF rules, timeout and body cap.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isObject } from '../core/json.js';
import type { ProbeAllowList } from './addressPolicy.js';
import { FetchFailure, safeFetch } from './safeFetch.js';

export interface McpCheckOptions {
  allowList: ProbeAllowList;
  timeoutMs: number;
  maxBodyBytes: number;
}

export type McpCheckOutcome = { ok: true } | { ok: false; detail: string };

const PAYMENT_REQUIRED_META = 'x402/payment-required';

/** The Streamable HTTP endpoint of `mcp://host/...` (where the seller SDK serves it). */
export function mcpEndpoint(resource: string, scheme: 'https' | 'http'): string {
  const host = resource.replace(/^mcp:\/\//i, '').split('/')[0] ?? '';
  return `${scheme}://${host}/mcp`;
}

/** A placeholder value of a JSON Schema: its default, first example or enum value, else an empty value of its type. */
function placeholder(schema: unknown): unknown {
  if (!isObject(schema)) return '';
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return callArguments(schema);
    default:
      return 'health check';
  }
}

/**
 * Arguments the tool's input schema accepts, so the call reaches its payment gate rather than
 * stopping at input validation: every required property gets a placeholder.
 */
export function callArguments(inputSchema: unknown): Record<string, unknown> {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return {};
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  return Object.fromEntries(required.map((name) => [name, placeholder((inputSchema.properties as Record<string, unknown>)[name])]));
}

function hasAccepts(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.accepts) && value.accepts.length > 0;
}

/** Whether a tool result carries x402 payment requirements, in any of the transport's places. */
export function carriesPaymentRequired(result: unknown): boolean {
  if (!isObject(result)) return false;
  if (hasAccepts(isObject(result._meta) ? result._meta[PAYMENT_REQUIRED_META] : undefined)) return true;
  if (hasAccepts(result.structuredContent)) return true;
  const content = Array.isArray(result.content) ? result.content : [];
  return content.some((part) => {
    if (!isObject(part) || typeof part.text !== 'string') return false;
    try {
      return hasAccepts(JSON.parse(part.text));
    } catch {
      return false;
    }
  });
}

/** fetch for the MCP client, over safeFetch. The optional standing SSE stream (GET) is declined: a check needs none. */
function checkedFetch(options: McpCheckOptions): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET' || method === 'DELETE') return new Response(null, { status: 405 });
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const answer = await safeFetch(method, String(url), { allowList: options.allowList, timeoutMs: options.timeoutMs, maxBodyBytes: options.maxBodyBytes, headers, ...(body !== undefined ? { body } : {}) });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
    const empty = answer.status === 202 || answer.status === 204 || answer.body.length === 0;
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: responseHeaders });
  };
}

/** Calls `toolName` at `endpoint` without payment; up when the answer carries payment requirements. */
export async function checkMcpTool(endpoint: string, toolName: string, args: Record<string, unknown>, options: McpCheckOptions): Promise<McpCheckOutcome> {
  const client = new Client({ name: 'x402-discovery-health', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { fetch: checkedFetch(options) });
  // initialize, its notification and the call: each request has the probe timeout, the whole check three.
  const deadline = AbortSignal.timeout(options.timeoutMs * 3);
  try {
    await client.connect(transport, { signal: deadline, timeout: options.timeoutMs * 3 });
    const result = await client.callTool({ name: toolName, arguments: args }, undefined, { signal: deadline, timeout: options.timeoutMs * 3 });
    return carriesPaymentRequired(result) ? { ok: true } : { ok: false, detail: 'the unpaid call did not answer with payment requirements' };
  } catch (err) {
    const detail = err instanceof FetchFailure ? `${err.reason}: ${err.message}` : (err as Error).message;
    return { ok: false, detail: detail.slice(0, 300) };
  } finally {
    await client.close().catch(() => undefined);
  }
}
