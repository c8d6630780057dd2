const GiB = 1024 ** 3;

/** SPEC Limits: a proof analysis takes one window of at most 7,200 s from a source of at most 8 GiB. */
export const PROOF_MAX_WINDOW_MS = 7_200_000;
export const PROOF_MAX_SOURCE_BYTES = 8 * GiB;
/** SPEC Limits: paid one-off sources up to 10 GiB. */
export const PAID_MAX_SOURCE_BYTES = 10 * GiB;
