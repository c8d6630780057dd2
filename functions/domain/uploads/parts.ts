import type { PartPlan } from './ports.js';

/** S3: at most 10,000 parts, each but the last at least 5 MiB. */
const MAX_PARTS = 10_000;

/** Equal parts of `partSizeBytes` (grown if needed to stay within S3's part count), the last one shorter. */
export function planParts(sizeBytes: number, partSizeBytes: number): PartPlan[] {
  const partSize = Math.max(partSizeBytes, Math.ceil(sizeBytes / MAX_PARTS));
  const count = Math.ceil(sizeBytes / partSize);
  return Array.from({ length: count }, (_, i) => ({
    partNumber: i + 1,
    sizeBytes: i < count - 1 ? partSize : sizeBytes - partSize * (count - 1),
  }));
}
