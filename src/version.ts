/** Semantic version of the public HTTP surface, sent as `X-API-Version` on every response. */
export const API_VERSION = '0.5.0';
