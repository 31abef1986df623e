/**
 * The seller SDK (`paid-api-discovery/sdk`): put a price on Express routes and MCP tools, get paid
 * through the service's facilitator, and get cataloged (announce on the first 402, publish on startup).
 */
export { createSeller, type Seller, type SellerOptions, type PaidRouteOptions, type PaymentReceipt } from './express.js';
export { PaidMcpServer, META as MCP_META, type PaidMcpOptions, type PaidToolConfig } from './mcp.js';
export { Announcer, type Announcement, type AnnouncerOptions, type OriginAnnouncement } from './announcer.js';
export { Publisher, type ToolListing, type PublishOutcome, type PublisherOptions } from './publisher.js';
export { ServiceClient, ServiceCallError, logCatalogOutcome, type CatalogOutcomeEvent, type ServiceClientOptions, type FetchLike } from './serviceClient.js';
export { buildRequirements, dollarsToUnits, PriceConfigError, type PriceOptions, type Scheme } from './price.js';
export { PaymentClaims } from './paymentClaims.js';
export { parsePaymentPayload, paymentRequiredV1, paymentRequiredV2, type PaidResource } from './payment.js';
export * from '../x402/wire.js';
