import type { BuiltInProvider } from './ports.js';

/**
 * Built-in source providers (SPEC One-off analysis, DESIGN §10): recorded-video and social sites,
 * meeting and storage services. They need no trusted-host setup; GET /v1/account lists them.
 * A URL belongs to a provider by an exact hostname, or by the provider's anchored host pattern
 * where hosts carry a customer label (a bucket, a tenant); no other suffix matching exists.
 */

/** One DNS label. */
const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** AWS regions: us-east-1, ap-southeast-2, us-gov-west-1. */
const awsRegion = '[a-z]{2}(?:-[a-z]+){1,2}-\\d{1,2}';
/** S3 bucket names: 3-63 of a-z, 0-9, dot and hyphen (dots make several DNS labels). */
const s3Bucket = '[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]';
/** S3 endpoints, path style and virtual-hosted: s3, s3.<region>, s3-<region> (legacy), dual-stack, accelerate. */
const s3Endpoint = `s3(?:[.-]${awsRegion}|\\.dualstack\\.${awsRegion}|-accelerate(?:\\.dualstack)?|-external-1)?`;

const anchored = (pattern: string) => new RegExp(`^${pattern}$`);

export const builtInProviders: readonly BuiltInProvider[] = [
  { id: 'youtube', name: 'YouTube', kind: 'recorded_video', resolver: 'yt-dlp', hostnames: ['youtube.com', 'www.youtube.com', 'm.youtube.com', 'youtu.be'] },
  { id: 'vimeo', name: 'Vimeo', kind: 'recorded_video', resolver: 'yt-dlp', hostnames: ['vimeo.com', 'www.vimeo.com', 'player.vimeo.com'] },
  { id: 'twitch', name: 'Twitch', kind: 'recorded_video', resolver: 'yt-dlp', hostnames: ['twitch.tv', 'www.twitch.tv', 'm.twitch.tv', 'clips.twitch.tv'] },
  { id: 'dailymotion', name: 'Dailymotion', kind: 'recorded_video', resolver: 'yt-dlp', hostnames: ['dailymotion.com', 'www.dailymotion.com', 'dai.ly'] },
  {
    id: 'tiktok',
    name: 'TikTok',
    kind: 'social',
    resolver: 'yt-dlp',
    hostnames: ['tiktok.com', 'www.tiktok.com', 'm.tiktok.com', 'vm.tiktok.com', 'vt.tiktok.com'],
  },
  {
    id: 'x',
    name: 'X (Twitter)',
    kind: 'social',
    resolver: 'yt-dlp',
    hostnames: ['x.com', 'www.x.com', 'mobile.x.com', 'twitter.com', 'www.twitter.com', 'mobile.twitter.com'],
  },
  {
    id: 'facebook',
    name: 'Facebook',
    kind: 'social',
    resolver: 'yt-dlp',
    hostnames: ['facebook.com', 'www.facebook.com', 'm.facebook.com', 'web.facebook.com', 'fb.watch'],
  },
  { id: 'instagram', name: 'Instagram', kind: 'social', resolver: 'yt-dlp', hostnames: ['instagram.com', 'www.instagram.com'] },
  // Recording links live on the account's vanity or data-centre host: us06web.zoom.us, acme.zoom.us.
  { id: 'zoom', name: 'Zoom recordings', kind: 'meeting', resolver: 'yt-dlp', hostnames: ['zoom.us'], hostPattern: anchored(`(?:${label}\\.)?zoom\\.us`) },
  { id: 'loom', name: 'Loom', kind: 'meeting', resolver: 'yt-dlp', hostnames: ['loom.com', 'www.loom.com'] },
  { id: 'google_drive', name: 'Google Drive', kind: 'storage', resolver: 'storage-link', hostnames: ['drive.google.com'] },
  { id: 'dropbox', name: 'Dropbox', kind: 'storage', resolver: 'storage-link', hostnames: ['dropbox.com', 'www.dropbox.com', 'dl.dropboxusercontent.com'] },
  // SharePoint (OneDrive for Business) hosts are the tenant's: contoso.sharepoint.com, contoso-my.sharepoint.com.
  {
    id: 'onedrive',
    name: 'OneDrive and SharePoint',
    kind: 'storage',
    resolver: 'storage-link',
    hostnames: ['onedrive.live.com', '1drv.ms'],
    hostPattern: anchored(`${label}\\.sharepoint\\.com`),
  },
  {
    id: 's3',
    name: 'Amazon S3 (presigned URL)',
    kind: 'storage',
    resolver: 'storage-link',
    hostnames: ['s3.amazonaws.com'],
    hostPattern: anchored(`(?:${s3Bucket}\\.)?${s3Endpoint}\\.amazonaws\\.com`),
  },
  {
    id: 'gcs',
    name: 'Google Cloud Storage (signed URL)',
    kind: 'storage',
    resolver: 'storage-link',
    hostnames: ['storage.googleapis.com'],
    hostPattern: anchored(`${label}(?:\\.${label})*\\.storage\\.googleapis\\.com`),
  },
];

/** The provider serving `hostname` (lower case, no trailing dot), if any. */
export function providerForHost(hostname: string): BuiltInProvider | undefined {
  return builtInProviders.find((provider) => provider.hostnames.includes(hostname) || provider.hostPattern?.test(hostname) === true);
}
