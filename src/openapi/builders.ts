/**
 * The few shapes every path description repeats, so that describing a route is one small object:
 * parameters with their bounds, JSON responses, the problem+json `code`s a route can answer, and
 * the request examples the compliance test (test/openapi-compliance.test.ts) sends for real.
 */

/** An OpenAPI object; the whole document is checked against the OpenAPI 3.1 schema by the tests. */
export type OpenApiObject = Record<string, unknown>;

/**
 * A request the document promises an answer to. The compliance test sends each one to a real
 * service (demo catalog loaded) and validates the real answer against the response documented
 * for `status`. `{sellerToken}` in a header is replaced by a token the test issues.
 */
export interface RequestExample {
  summary: string;
  status: number;
  query?: Record<string, string>;
  /** Values of the path's `{name}` segments. */
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface OperationSpec {
  tags: string[];
  summary: string;
  description?: string;
  parameters?: OpenApiObject[];
  requestBody?: OpenApiObject;
  /** Successful (and other non-problem) responses by status. */
  responses: Record<number, OpenApiObject>;
  /** The problem+json codes this operation answers, by status. `internal` (500) is added to all. */
  problems?: ProblemCodes;
  security?: OpenApiObject[];
  examples: RequestExample[];
}

export type ProblemCodes = Record<number, readonly string[]>;

/** Codes any route with a JSON body can answer (src/http/middleware.ts). */
export const BODY_PROBLEMS: ProblemCodes = {
  400: ['invalid_json', 'request_aborted'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
};

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function json(description: string, schema: OpenApiObject, headers?: OpenApiObject): OpenApiObject {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

export function queryParameter(name: string, description: string, schema: OpenApiObject, required = false): OpenApiObject {
  return { name, in: 'query', required, description, schema };
}

export function pathParameter(name: string, description: string, schema: OpenApiObject): OpenApiObject {
  return { name, in: 'path', required: true, description, schema };
}

export function jsonBody(description: string, schema: OpenApiObject): OpenApiObject {
  return { required: true, description, content: { 'application/json': { schema } } };
}

/** Merges code lists per status (a route's own codes plus the shared body/rate-limit ones). */
export function mergeProblems(...sets: ProblemCodes[]): ProblemCodes {
  const merged: Record<number, string[]> = {};
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) {
      const list = (merged[Number(status)] ??= []);
      for (const code of codes) if (!list.includes(code)) list.push(code);
    }
  }
  return merged;
}

/** One response per status: problem+json whose `code` is exactly one of the documented ones. */
function problemResponses(codes: ProblemCodes): Record<string, OpenApiObject> {
  const responses: Record<string, OpenApiObject> = {};
  for (const [status, list] of Object.entries(codes)) {
    const retry = status === '429' || status === '503';
    responses[status] = {
      description: `Problem details; \`code\` is one of: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      ...(retry ? { headers: RETRY_AFTER } : {}),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [ref('Problem'), { type: 'object', properties: { status: { const: Number(status) }, code: { enum: [...list] } } }],
          },
        },
      },
    };
  }
  return responses;
}

/** The OpenAPI operation object of a spec; `x-examples` carries the request examples. */
export function operation(id: string, spec: OperationSpec): OpenApiObject {
  const problems = mergeProblems(spec.problems ?? {}, { 500: ['internal'] });
  const responses: Record<string, OpenApiObject> = {};
  for (const [status, response] of Object.entries(spec.responses)) responses[status] = response;
  Object.assign(responses, problemResponses(problems));
  return {
    operationId: id,
    tags: spec.tags,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    ...(spec.security ? { security: spec.security } : {}),
    responses,
    'x-examples': spec.examples,
  };
}
