import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import { admitRequest, type RateVerdict } from '../domain/accounts/request-limits.js';
import { admitConsoleRequest } from '../domain/console/sessions.js';
import { accountReads, consoleSessionReads, requestBuckets } from '../composition/accounts.js';
import { cookiesOf, SESSION_COOKIE } from '../http/console-session.js';
import { isConsoleRouteKey } from '../routes.js';
import type { AuthorizerContext } from '../http/types.js';

/**
 * Lambda REQUEST authorizer (simple responses) of every route, the console's included. It always
 * allows the call through and says who the caller is and what is left of the account's request
 * bucket, or why there is no caller: the route then answers 401 or 429 in the JSON error envelope
 * with a request_id and the rate headers, which API Gateway's own 401/403 answers (the only ones an
 * authorizer can give) would not carry. It runs for every request (no result cache:
 * infra/constructs/service-http-api.ts), so each request takes its token here, once, whichever
 * route it is for. The route key says which credential counts: a console route or twin reads only
 * the session cookie, any other route only the API key.
 */
export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> => {
  try {
    const { accountId, verdict, sessionId }: { accountId: string; verdict: RateVerdict; sessionId?: string } = isConsoleRouteKey(event.routeKey)
      ? await admitConsoleRequest(consoleSessionReads(), accountReads(), requestBuckets(), cookiesOf(event).get(SESSION_COOKIE), Date.now)
      : await admitRequest(accountReads(), requestBuckets(), event.headers?.authorization, Date.now);
    return {
      isAuthorized: true,
      context: {
        accountId,
        ...(sessionId ? { sessionId } : {}),
        rateLimit: verdict.limit,
        rateRemaining: verdict.remaining,
        rateResetAt: verdict.resetAt,
        ...(verdict.allowed ? {} : { retryAfter: verdict.retryAfter }),
      },
    };
  } catch (error) {
    if (error instanceof ApiError) return { isAuthorized: true, context: { authError: error.message } };
    throw error;
  }
};
