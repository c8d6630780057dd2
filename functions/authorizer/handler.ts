import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { authenticate } from '../domain/accounts.js';
import { ApiError } from '../domain/errors.js';
import { apiKeys } from '../composition/table.js';
import type { AuthorizerContext } from '../http/types.js';

/**
 * Lambda REQUEST authorizer (simple responses). It always allows the call through and says who
 * the caller is, or why not: the route then answers 401 in the JSON error envelope with a
 * request_id, which API Gateway's own 401/403 bodies would not carry.
 */
export const handler = async (
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> => {
  const authorization = event.headers?.authorization;
  try {
    const accountId = await authenticate(apiKeys(), authorization);
    return { isAuthorized: true, context: { accountId } };
  } catch (error) {
    if (error instanceof ApiError) return { isAuthorized: true, context: { authError: error.message } };
    throw error;
  }
};
