import type * as z from '../shared/zod.js';
import { ApiError } from '../domain/errors.js';
import type { ApiResponse } from './types.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/** The account's request bucket on every authenticated answer, and the wait on a 429 (functions/domain/accounts/request-limits.ts). */
export const RATE_LIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
  retryAfter: 'retry-after',
} as const;

export function jsonResponse(status: number, body: unknown, requestId: string, extraHeaders: Record<string, string> = {}): ApiResponse {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...extraHeaders },
    body: JSON.stringify(body),
  };
}

/** `output.labels[2]`, the way an integrator writes the path to a field. */
function paramPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), '');
}

/** The first schema problem as an ApiError naming the field, prefixed with where it was found. */
export function validationError(error: z.core.$ZodError, location?: 'query' | 'path'): ApiError {
  const issue = error.issues[0];
  const path = [...(issue?.path ?? [])];
  if (issue?.code === 'unrecognized_keys' && issue.keys[0]) path.push(issue.keys[0]);
  const field = paramPath(path);
  const message = issue?.code === 'unrecognized_keys' ? `Unknown field "${issue.keys.join('", "')}".` : (issue?.message ?? 'Invalid request.');
  const param = location && field ? field : field || undefined;
  return new ApiError('validation_failed', field ? `${field}: ${message}` : message, param);
}

/** The DESIGN §4 envelope for any error; the message of an unexpected one is never exposed. */
export function errorResponse(error: unknown, requestId: string): ApiResponse {
  const apiError = error instanceof ApiError ? error : new ApiError('internal_error', 'Something went wrong on our side; it has been logged.');
  return jsonResponse(
    apiError.status,
    {
      error: {
        type: apiError.type,
        code: apiError.code,
        message: apiError.message,
        ...(apiError.param ? { param: apiError.param } : {}),
        request_id: requestId,
      },
    },
    requestId,
  );
}
