import type { LambdaClient } from '@aws-sdk/client-lambda';
import { logger } from '../../shared/logger.js';
import { answerOf, type ProviderResolverInvoker } from './provider-resolution.js';

/**
 * The provider-resolver function invoked synchronously: the AWS host's way to run it. Give it a
 * client with one attempt (composition/aws-host.ts): a retry of a call that may take the
 * function's whole timeout would outlast the API's 29 s. Failures are logged by kind only: an SDK
 * error or a function error's message may quote the event, and with it the page URL.
 */
export function lambdaProviderResolver(lambda: LambdaClient, functionName: string): ProviderResolverInvoker {
  return async (event) => {
    // Loaded at the first call, as the other adapters load their commands.
    const { InvokeCommand } = await import('@aws-sdk/client-lambda');
    let reply;
    try {
      reply = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: new TextEncoder().encode(JSON.stringify(event)) }));
    } catch (error) {
      logger.warn('The provider resolver could not be invoked', { errorName: (error as Error).name });
      return undefined;
    }
    const body = answerOf(reply.Payload ? new TextDecoder().decode(reply.Payload) : '');
    if (reply.FunctionError) {
      // Lambda's own timeout (Sandbox.Timedout) or an exception in the handler.
      logger.warn('The provider resolver failed', { functionError: reply.FunctionError, errorType: errorTypeOf(body) });
      return undefined;
    }
    return body;
  };
}

const errorTypeOf = (body: unknown): string | undefined =>
  body && typeof body === 'object' && 'errorType' in body && typeof body.errorType === 'string' ? body.errorType : undefined;
