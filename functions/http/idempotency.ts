import type { Context } from 'aws-lambda';
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyInconsistentStateError, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { ApiError } from '../domain/errors.js';
import type { IdempotencyScope } from '../adapters/idempotency-store.js';
import type { HttpResult } from './types.js';

/** One idempotent call: the scope that names it, the request it stands for, and the work. */
export interface IdempotentCall extends IdempotencyScope {
  fingerprint: string;
  requestId: string;
  execute: () => Promise<HttpResult>;
}

/** The body is kept as JSON text: a DynamoDB map would not keep key order, and a replay must match byte for byte. */
interface StoredResponse {
  status: number;
  bodyJson: string;
  fingerprint: string;
  requestId: string;
}

export type IdempotentExecutor = (call: IdempotentCall, context: Context) => Promise<{ result: HttpResult; replayed: boolean }>;

/**
 * Wraps the use case (not the handler) in Powertools idempotency. The request fingerprint is
 * stored with the response and compared here rather than by Powertools' payload validation,
 * which deletes the stored record on a mismatch (STACK.md): the original stays replayable.
 */
export function createIdempotentExecutor(persistenceStore: BasePersistenceLayer, ttlSeconds: number): IdempotentExecutor {
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey', expiresAfterSeconds: ttlSeconds });
  const run = makeIdempotent(
    async (call: IdempotentCall): Promise<StoredResponse> => {
      const { status, body } = await call.execute();
      return { status, bodyJson: JSON.stringify(body), fingerprint: call.fingerprint, requestId: call.requestId };
    },
    { persistenceStore, config },
  );

  return async (call, context) => {
    // Bounds how long an in-progress record blocks retries if this invocation dies mid-way.
    config.registerLambdaContext(context);
    let stored: StoredResponse;
    try {
      stored = await run(call);
    } catch (error) {
      if (error instanceof IdempotencyAlreadyInProgressError || error instanceof IdempotencyInconsistentStateError) {
        throw new ApiError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
      }
      throw error;
    }
    if (stored.fingerprint !== call.fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request; use a new key for a new request.',
        'Idempotency-Key',
      );
    }
    return { result: { status: stored.status, body: JSON.parse(stored.bodyJson) as unknown }, replayed: stored.requestId !== call.requestId };
  };
}
