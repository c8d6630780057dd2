/**
 * The one error-to-HTTP mapping (DESIGN §4). Domain code throws `ApiError` with a code; the
 * HTTP layer turns it into the envelope. Nothing else decides a status code for an error.
 */
export const errorCatalog = {
  validation_failed: { status: 400, type: 'invalid_request_error' },
  upload_not_found: { status: 400, type: 'invalid_request_error' },
  upload_not_ready: { status: 400, type: 'invalid_request_error' },
  window_not_supported: { status: 400, type: 'invalid_request_error' },
  idempotency_key_required: { status: 400, type: 'invalid_request_error' },
  invalid_cursor: { status: 400, type: 'invalid_request_error' },
  unauthorized: { status: 401, type: 'authentication_error' },
  csrf_failed: { status: 403, type: 'permission_error' },
  window_out_of_range: { status: 400, type: 'invalid_request_error' },
  moment_not_found: { status: 400, type: 'invalid_request_error' },
  captions_unavailable: { status: 400, type: 'invalid_request_error' },
  insufficient_credits: { status: 402, type: 'billing_error' },
  proof_allowance_exhausted: { status: 402, type: 'billing_error' },
  source_too_large: { status: 422, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'not_found_error' },
  analysis_not_completed: { status: 409, type: 'conflict_error' },
  run_not_completed: { status: 409, type: 'conflict_error' },
  analysis_not_cancelable: { status: 409, type: 'conflict_error' },
  batch_not_cancelable: { status: 409, type: 'conflict_error' },
  delivery_not_retryable: { status: 409, type: 'conflict_error' },
  idempotency_key_reused: { status: 409, type: 'idempotency_error' },
  idempotency_request_in_progress: { status: 409, type: 'idempotency_error' },
  upload_object_missing: { status: 409, type: 'conflict_error' },
  webhook_endpoint_limit_reached: { status: 409, type: 'conflict_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  request_header_fields_too_large: { status: 431, type: 'invalid_request_error' },
  untrusted_source_url: { status: 422, type: 'invalid_request_error' },
  source_unreadable: { status: 422, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  queue_unavailable: { status: 503, type: 'service_unavailable_error' },
  uploads_unavailable: { status: 503, type: 'service_unavailable_error' },
  provider_unavailable: { status: 503, type: 'service_unavailable_error' },
  scanner_batch_service_unavailable: { status: 503, type: 'service_unavailable_error' },
  event_delivery_unavailable: { status: 503, type: 'service_unavailable_error' },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;

  constructor(code: ErrorCode, message: string, param?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApiError';
    this.code = code;
    this.param = param;
  }

  get status(): number {
    return errorCatalog[this.code].status;
  }

  get type(): string {
    return errorCatalog[this.code].type;
  }
}

/** Unknown and foreign resources are indistinguishable (SPEC Authentication). */
export const notFound = (what: string): ApiError => new ApiError('not_found', `No such ${what}.`);
