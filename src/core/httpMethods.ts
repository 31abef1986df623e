/**
 * The HTTP methods a paid endpoint can be listed under, upper case. OPTIONS is not one: it is the
 * CORS preflight, which browsers send without payment and which no x402 seller charges for.
 */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The upper-case method when `value` names one of HTTP_METHODS (any case), else undefined. */
export function httpMethod(value: unknown): HttpMethod | undefined {
  if (typeof value !== 'string') return undefined;
  const upper = value.toUpperCase();
  return (HTTP_METHODS as readonly string[]).includes(upper) ? (upper as HttpMethod) : undefined;
}
