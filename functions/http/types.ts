import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * What the authorizer hands each route: the account and its request bucket after this request
 * (functions/domain/accounts/request-limits.ts RateVerdict), or why there is no account.
 */
export interface AuthorizerContext {
  accountId?: string;
  authError?: string;
  rateLimit?: number;
  rateRemaining?: number;
  rateResetAt?: number;
  /** Seconds to wait: set when the bucket refused the request. */
  retryAfter?: number;
}

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>;
export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string>; body: string };

/** A use case's answer before it becomes an HTTP response. */
export interface HttpResult {
  status: number;
  body: unknown;
}
