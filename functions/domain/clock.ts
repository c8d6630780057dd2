/** ISO 8601 UTC with milliseconds and Z (DESIGN §3). */
export const nowIso = (): string => new Date().toISOString();
