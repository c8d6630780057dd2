import { plans } from '../accounts/plans.js';
import type { UploadRecord } from './model.js';

/**
 * Source retention (SPEC Limits: beginner 7, hobby 30, creator 90 days) as S3 sees it: every media
 * object carries the tag `retention-days=<class>`, and the bucket has one lifecycle rule per class
 * that expires objects with that tag after that many days. The classes are the plans' retention
 * periods; a contracted (enterprise) override between two classes is rounded up to the next class,
 * so an object is never removed before the retention the account was promised.
 *
 * CDK reads RETENTION_TAG_KEY and retentionClasses() from here to build the lifecycle rules.
 */
export const RETENTION_TAG_KEY = 'retention-days';

/** Sorted, distinct retention periods in days: one lifecycle rule each. */
export const retentionClasses = (): number[] => [...new Set(Object.values(plans).map((p) => p.retentionDays))].sort((a, b) => a - b);

/** The lifecycle class an account's retention maps to (the smallest class that is not shorter). */
export function retentionClassFor(retentionDays: number): number {
  const classes = retentionClasses();
  return classes.find((days) => days >= retentionDays) ?? (classes.at(-1) as number);
}

export const retentionTags = (retentionDays: number): Record<string, string> => ({
  [RETENTION_TAG_KEY]: String(retentionClassFor(retentionDays)),
});

/** URL-encoded tag set, as the `x-amz-tagging` header and the PutObject `Tagging` field take it. */
export const encodeTags = (tags: Record<string, string>): string => new URLSearchParams(tags).toString();

/** Upload records outlive their object by this long, so reconciliation still finds them. */
const UPLOAD_RECORD_GRACE_DAYS = 30;

/** Retention and record expiry count in whole days. */
export const DAY_MS = 86_400_000;

const epochSeconds = (iso: string, plusDays = 0): number => Math.ceil((Date.parse(iso) + plusDays * DAY_MS) / 1000);

/** When the table may drop the record: some time after nobody can use it any more. */
export function recordExpiry(upload: UploadRecord): number {
  const end = upload.retentionExpiresAt ?? upload.failedAt ?? upload.expiresAt;
  return epochSeconds(end, UPLOAD_RECORD_GRACE_DAYS);
}
