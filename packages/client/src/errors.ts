/** The API's error envelope (DESIGN §4), as a thrown error: status, code, message, request id. */
export class MediaScannerError extends Error {
  override name = 'MediaScannerError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly param?: string,
  ) {
    super(message);
  }

  /** An error of any response: the envelope when the body is one, else the status and text. */
  static from(response: Response, body: unknown): MediaScannerError {
    const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown; request_id?: unknown } } | undefined)?.error;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      return new MediaScannerError(
        response.status,
        error.code,
        error.message,
        typeof error.request_id === 'string' ? error.request_id : (response.headers.get('x-request-id') ?? undefined),
        typeof error.param === 'string' ? error.param : undefined,
      );
    }
    const text = typeof body === 'string' ? body.slice(0, 200) : '';
    return new MediaScannerError(
      response.status,
      `http_${response.status}`,
      text || `HTTP ${response.status}`,
      response.headers.get('x-request-id') ?? undefined,
    );
  }
}

/** Polling gave up: the work is still going on (it is not canceled). */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}
