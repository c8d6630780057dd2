import type {
  APIGatewayEventRequestContextJWTAuthorizer,
  APIGatewayEventRequestContextV2WithAuthorizer,
  APIGatewayProxyEventV2WithRequestContext,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

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

/**
 * What a route receives: API-key routes carry the Lambda authorizer's context (`lambda`), console
 * routes and the console's twins of API routes the session's JWT claims (`jwt`: API Gateway's JWT
 * authorizer on AWS, the local host's stand-in locally). A route reads the one its route key calls for.
 */
export type ApiEvent = APIGatewayProxyEventV2WithRequestContext<
  APIGatewayEventRequestContextV2WithAuthorizer<{ lambda?: AuthorizerContext; jwt?: APIGatewayEventRequestContextJWTAuthorizer['jwt'] }>
>;
export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string>; body: string };

/** A use case's answer before it becomes an HTTP response. */
export interface HttpResult {
  status: number;
  body: unknown;
  /** Set-Cookie values (the console's sign-out clears its cookies). */
  cookies?: string[];
}
