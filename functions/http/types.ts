import type { APIGatewayEventRequestContextV2WithAuthorizer, APIGatewayProxyEventV2WithRequestContext, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * What the authorizer hands each route: the account and its request bucket after this request
 * (functions/domain/accounts/request-limits.ts RateVerdict), or why there is no account.
 */
export interface AuthorizerContext {
  accountId?: string;
  /** A console session's id (its token's hash), on console routes only: the caller is that session's. */
  sessionId?: string;
  authError?: string;
  rateLimit?: number;
  rateRemaining?: number;
  rateResetAt?: number;
  /** Seconds to wait: set when the bucket refused the request. */
  retryAfter?: number;
}

/** What a route receives: the Lambda authorizer's context (`lambda`), for an API key or, on console routes, a console session. */
export type ApiEvent = APIGatewayProxyEventV2WithRequestContext<APIGatewayEventRequestContextV2WithAuthorizer<{ lambda?: AuthorizerContext }>>;
export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string>; body: string };

/** A use case's answer before it becomes an HTTP response. */
export interface HttpResult {
  status: number;
  body: unknown;
  /** Set-Cookie values (the console's sign-out clears its cookies). */
  cookies?: string[];
}
