import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What the authorizer hands each route: the account, or why there is none. */
export interface AuthorizerContext {
  accountId?: string;
  authError?: string;
}

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext>;
export type ApiResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string>; body: string };

/** A use case's answer before it becomes an HTTP response. */
export interface HttpResult {
  status: number;
  body: unknown;
}
