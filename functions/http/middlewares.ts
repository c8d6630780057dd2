import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../shared/logger.js';
import { publishMetrics } from '../shared/metrics.js';
import { errorResponse } from './responses.js';
import { ApiError } from '../domain/errors.js';
import type { ApiEvent, ApiResponse } from './types.js';

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
