import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../shared/logger.js';
import { publishMetrics } from '../shared/metrics.js';
import { errorResponse, RATE_LIMIT_HEADERS } from './responses.js';
import { ApiError } from '../domain/errors.js';
import type { ApiEvent, ApiResponse, AuthorizerContext } from './types.js';

type Middleware = MiddlewareObj<ApiEvent, ApiResponse, Error, Context>;

/** Adds the request's context to every log line of this invocation. */
export const requestLogging = (): Middleware => ({
  before: ({ event, context }) => {
    logger.addContext(context);
    logger.appendKeys({ request_id: event.requestContext.requestId, route: event.routeKey });
  },
  after: () => logger.resetKeys(),
});

/** Any error becomes the DESIGN §4 envelope; an unexpected one is logged, never shown. */
export const errorEnvelope = (): Middleware => ({
  onError: (request) => {
    const { error, event } = request;
    // Our own 5xx answers: a failure with a cause (queue_unavailable) is worth its stack; a switch
    // that is off (uploads, batches, event delivery unavailable) is the deployment's choice, one line.
    if (!(error instanceof ApiError)) logger.error('Request failed', error as Error);
    else if (error.status >= 500 && error.cause !== undefined) logger.error('Request failed', error);
    else if (error.status >= 500) logger.warn(`Request answered ${error.status} ${error.code}: ${error.message}`);
    request.response = errorResponse(error, event.requestContext.requestId);
    logger.resetKeys();
  },
});

/** Publishes the business metrics the invocation recorded, whether it answered or failed. */
export const flushMetrics = (): Middleware => ({
  after: () => publishMetrics(),
  onError: () => publishMetrics(),
});

/** The headers of the authorizer's verdict; none for a request without an account. */
function rateHeaders(context: AuthorizerContext | undefined): Record<string, string> {
  if (context?.rateLimit === undefined) return {};
  return {
    [RATE_LIMIT_HEADERS.limit]: String(context.rateLimit),
    [RATE_LIMIT_HEADERS.remaining]: String(context.rateRemaining),
    [RATE_LIMIT_HEADERS.reset]: String(context.rateResetAt),
    ...(context.retryAfter !== undefined ? { [RATE_LIMIT_HEADERS.retryAfter]: String(context.retryAfter) } : {}),
  };
}

/**
 * The account's request limit, as the authorizer judged it (it takes the token): a refused request
 * ends here with 429 before the route reads anything; every answer carries the bucket's headers.
 * Used before errorEnvelope, so its onError runs after the envelope exists.
 */
export const requestLimits = (): Middleware => {
  const addHeaders = ({ event, response }: { event: ApiEvent; response: ApiResponse | null | undefined }) => {
    if (response) Object.assign(response.headers, rateHeaders(event.requestContext.authorizer?.lambda));
  };
  return {
    before: ({ event }) => {
      const retryAfter = event.requestContext.authorizer?.lambda?.retryAfter;
      if (retryAfter !== undefined) throw new ApiError('rate_limited', `This account's request limit is used up; retry after ${retryAfter} s.`);
    },
    after: addHeaders,
    onError: addHeaders,
  };
};
