/** Listing inputs for the catalog tests: valid by default, overridable field by field. */
import type { HttpListingInput, McpListingInput } from '../../src/shapes/listingInput.js';

export const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
export const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';

export function httpInput(overrides: Partial<HttpListingInput> = {}): HttpListingInput {
  return {
    type: 'http',
    resource: 'https://api.weather.example/forecast',
    payment: { scheme: 'exact', network: 'eip155:84532', asset: BASE_SEPOLIA_USDC, amount: '10000', payTo: PAY_TO },
    describe: {
      title: 'Weather forecast',
      description: 'Hourly forecast for a coordinate',
      tags: ['weather', 'forecast'],
      inputs: { lat: 'number', lng: 'number' },
    },
    ...overrides,
  };
}

export function mcpInput(overrides: Partial<McpListingInput> = {}): McpListingInput {
  return {
    type: 'mcp',
    resource: 'mcp://tools.example/translate_text',
    name: 'translate_text',
    description: 'Translate text between languages',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, targetLanguage: { type: 'string' } },
      required: ['text', 'targetLanguage'],
    },
    outputSchema: { type: 'object', properties: { translation: { type: 'string' } } },
    payment: { scheme: 'upto', network: 'eip155:84532', asset: BASE_SEPOLIA_USDC, amount: '50000', pricing: { unit: 'character', pricePerUnit: '10' } },
    tags: ['translation'],
    ...overrides,
  };
}
