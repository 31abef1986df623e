/**
 * The copyable "how to call it" snippets of a listing page: an x402 buyer (the @x402/fetch and
 * @x402/evm packages this service is tested with, docs/facilitator.md) for HTTP endpoints, and an
 * MCP client configuration plus the paid tool call for MCP tools (docs/sdk.md, "_meta x402/payment").
 */
import type { HttpListing, McpListing } from '../../catalog/listing.js';

export function httpSnippet(listing: HttpListing): string {
  const upto = listing.payment.scheme === 'upto';
  const schemeImport = upto
    ? `import { UptoEvmScheme } from '@x402/evm/upto/client';`
    : `import { registerExactEvmScheme } from '@x402/evm/exact/client';`;
  const client = upto
    ? `const client = new x402Client().register('${listing.payment.network}', new UptoEvmScheme(signer));`
    : `const client = new x402Client();\nregisterExactEvmScheme(client, { signer });`;
  const notes = [
    ...(listing.resource.includes('{') ? ['// Replace the {placeholders} in the URL with real values.'] : []),
    ...(Object.keys(listing.describe.inputs ?? {}).length > 0 ? [`// Inputs: ${Object.keys(listing.describe.inputs!).join(', ')}`] : []),
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
    `const response = await fetchWithPayment('${listing.resource}');`,
    'console.log(response.status, await response.json());',
    '',
  ].join('\n');
}

/** The server of `mcp://host/tool`; sellers built with the seller SDK serve Streamable HTTP at /mcp. */
export function mcpServerUrl(listing: McpListing): string {
  const host = listing.resource.replace(/^mcp:\/\//, '').split('/')[0] ?? '';
  return `https://${host}/mcp`;
}

export function mcpConfigSnippet(listing: McpListing): string {
  const host = listing.resource.replace(/^mcp:\/\//, '').split('/')[0] ?? 'server';
  return JSON.stringify({ mcpServers: { [host]: { type: 'http', url: mcpServerUrl(listing) } } }, null, 2);
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
