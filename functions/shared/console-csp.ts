/**
 * The console's Content-Security-Policy (docs/console.md), the same on both hosts: its own scripts
 * and styles only, nothing inline, no framing; the media bucket is the one other origin, which
 * uploads PUT to and the player reads from through signed URLs.
 */
export const consoleCsp = (mediaOrigin: string): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `media-src 'self' blob: ${mediaOrigin}`,
    `connect-src 'self' ${mediaOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
