/** Defaults of a one-off analysis when the request leaves them out. */
export const ONE_OFF_DEFAULTS = { profile: 'conversation', speech_cleanup: 'natural', max_moments: 10, min_seconds: 15, max_seconds: 60 } as const;
