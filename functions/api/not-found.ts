import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import { matchRoute } from '../routes.js';
import type { ApiResponse } from '../http/types.js';

/** The catch-all route: unknown paths get the same JSON envelope as every other error. */
export const handler = (event: APIGatewayProxyEventV2): Promise<ApiResponse> => {
  const match = matchRoute(event.requestContext.http.method, event.rawPath);
  const error =
    match.kind === 'method_not_allowed'
      ? new ApiError('method_not_allowed', `${event.requestContext.http.method} is not supported here; use ${match.allowed.join(', ')}.`)
      : new ApiError('not_found', `No route ${event.requestContext.http.method} ${event.rawPath}.`);
  const response = errorResponse(error, event.requestContext.requestId);
  if (match.kind === 'method_not_allowed') response.headers.allow = match.allowed.join(', ');
  return Promise.resolve(response);
};
