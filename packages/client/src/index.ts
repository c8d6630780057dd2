/**
 * @media-scanner/client: the Media Scanner Service API, typed from its OpenAPI document
 * (openapi-fetch over the types `npm run openapi` generates), plus the helpers integrators
 * otherwise write themselves: upload a file, wait for work, retry transient failures, verify
 * webhooks.
 */
export { createMediaScannerClient, unwrap, type ClientOptions, type MediaScannerClient } from './client.js';
export { systemClock, type Clock } from './clock.js';
export { MediaScannerError, WaitTimeoutError } from './errors.js';
export { backoffMs, retryDefaults, retryingFetch, withRetries, type RetryOptions } from './retry.js';
export { contentTypeFor, uploadFile, type CreateUploadBody, type UploadContentType, type UploadOptions, type UploadSource } from './upload.js';
export { pollUntil, terminalAnalysisStatuses, terminalBatchStatuses, terminalRunStatuses, type WaitOptions } from './wait.js';
export { verifyWebhook, type WebhookEvent } from './webhooks.js';
export type * from './schema.js';
