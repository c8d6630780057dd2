import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import { admitRequest } from '../domain/accounts/request-limits.js';
import { accountReads, requestBuckets } from '../composition/accounts.js';
import type { AuthorizerContext } from '../http/types.js';

/**
 * Lambda REQUEST authorizer (simple responses). It always allows the call through and says who
 * the caller is and what is left of the account's request bucket, or why there is no caller: the
 * route then answers 401 or 429 in the JSON error envelope with a request_id and the rate headers,
 * which API Gateway's own 401/403 answers (the only ones an authorizer can give) would not carry.
 * It runs for every request (no result cache: infra/constructs/service-http-api.ts), so each
 * request takes its token here, once, whichever route it is for.
 */
export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> => {
  const authorization = event.headers?.authorization;
  try {
    const { accountId, verdict } = await admitRequest(accountReads(), requestBuckets(), authorization, Date.now);
    return {
      isAuthorized: true,
      context: {
        accountId,
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
