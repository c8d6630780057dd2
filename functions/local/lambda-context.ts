import type { Context } from 'aws-lambda';

/** API routes time out at 29 s on API Gateway; the local host gives handlers the same budget. */
const ROUTE_TIMEOUT_MS = 29_000;

/** A Lambda context for an in-process invocation, so handlers and Powertools see what AWS gives. */
export function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + ROUTE_TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
