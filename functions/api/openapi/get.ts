import { ApiError } from '../../domain/errors.js';
import { errorResponse, jsonResponse } from '../../http/responses.js';
import type { RequestSchemas } from '../../http/handler.js';
import type { ApiEvent, ApiResponse } from '../../http/types.js';

/**
 * GET /v1/openapi.json: the document `npm run openapi` generated (openapi.json at the repo root).
 * The bundler inlines the JSON into this function, so no Lambda carries the generator; it is read
 * at the first request, not at start-up. Like every route it needs an API key. It is static, so it
 * skips httpHandler's middleware (logging, metrics, idempotency), which would double its bundle.
 */
let document: Promise<unknown> | undefined;

async function getDocument(event: ApiEvent): Promise<ApiResponse> {
  const { requestId, authorizer } = event.requestContext;
  if (!authorizer?.lambda?.accountId) return errorResponse(new ApiError('unauthorized', authorizer?.lambda?.authError ?? 'Missing API key.'), requestId);
  document ??= import('../../../openapi.json', { with: { type: 'json' } }).then((module) => module.default);
  return jsonResponse(200, await document, requestId);
}

/** No path, query or body: the document lists none for this route (functions/api/openapi.ts reads this). */
const requestSchemas: RequestSchemas<never, never, never> = {};

export const handler = Object.assign(getDocument, { requestSchemas });
