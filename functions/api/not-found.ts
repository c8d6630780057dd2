import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import { matchRoute } from '../routes.js';
import type { ApiResponse } from '../http/types.js';

/** The catch-all route: unknown paths get the same JSON envelope as every other error. */
export const handler = (event: APIGatewayProxyEventV2): Promise<ApiResponse> => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  const { method } = event.requestContext.http;
  // A known path with another method is still an unknown route (as on API Gateway): 404, with a hint.
  const hint = match.kind === 'method_not_allowed' ? ` This path supports ${match.allowed.join(', ')}.` : '';
  const response = errorResponse(new ApiError('not_found', `No route ${method} ${event.rawPath}.${hint}`), event.requestContext.requestId);
  if (match.kind === 'method_not_allowed') response.headers.allow = match.allowed.join(', ');
  return Promise.resolve(response);
};
