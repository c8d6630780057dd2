import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { errorEnvelope, requestLogging } from './middlewares.js';
import type { ApiEvent, ApiResponse } from './types.js';

/** A 302 that sets `cookies`; never cached, since each answer is one browser's. */
export const redirect = (location: string, cookies: readonly string[]): ApiResponse => ({
  statusCode: 302,
  headers: { location, 'cache-control': 'no-store' },
  cookies: [...cookies],
  body: '',
});

/**
 * A public route that answers with a redirect (the console's sign-in steps): no principal, no
 * request limit (no account to charge); errors still answer with the DESIGN §4 envelope.
 */
export const redirectHandler = (action: (event: ApiEvent) => Promise<ApiResponse>) =>
  middy<ApiEvent, ApiResponse, Error, Context>().use(requestLogging()).use(errorEnvelope()).handler(action);
