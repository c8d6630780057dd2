/**
 * Built-in source providers (SPEC One-off analysis): recorded-video and social sites, meeting
 * and storage services. They need no trusted-host setup; GET /v1/account lists them.
 */
export const builtInProviders = [
  { id: 'youtube', kind: 'video_platform', hostnames: ['youtube.com', 'www.youtube.com', 'youtu.be'] },
  { id: 'vimeo', kind: 'video_platform', hostnames: ['vimeo.com', 'player.vimeo.com'] },
  { id: 'twitch', kind: 'video_platform', hostnames: ['twitch.tv', 'www.twitch.tv', 'clips.twitch.tv'] },
  { id: 'tiktok', kind: 'social', hostnames: ['tiktok.com', 'www.tiktok.com'] },
  { id: 'x', kind: 'social', hostnames: ['x.com', 'twitter.com'] },
  { id: 'zoom', kind: 'meeting', hostnames: ['zoom.us'] },
  { id: 'loom', kind: 'meeting', hostnames: ['loom.com', 'www.loom.com'] },
  { id: 'google_drive', kind: 'storage', hostnames: ['drive.google.com'] },
  { id: 'dropbox', kind: 'storage', hostnames: ['dropbox.com', 'www.dropbox.com'] },
] as const;
