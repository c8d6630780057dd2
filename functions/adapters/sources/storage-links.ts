import { ApiError } from '../../domain/errors.js';
import { providerForHost } from '../../domain/sources/providers.js';
import type { BuiltInProvider } from '../../domain/sources/ports.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { MAX_REDIRECTS } from '../outbound/outbound-client.js';

/**
 * Storage links (DESIGN §10) in their direct-download forms: a share page becomes the URL that
 * answers with the file's bytes. Presigned S3 and signed GCS URLs already are that.
 */
export function directDownloadUrl(url: URL, provider: BuiltInProvider): URL {
  const direct = new URL(url);
  switch (provider.id) {
    case 'dropbox':
      // dl.dropboxusercontent.com already serves bytes; share pages do with dl=1 (raw=1 would too).
      if (direct.hostname !== 'dl.dropboxusercontent.com') {
        direct.searchParams.delete('raw');
        direct.searchParams.set('dl', '1');
      }
      return direct;
    case 'google_drive':
      return googleDriveDownload(direct);
    case 'onedrive':
      if (direct.hostname === 'onedrive.live.com' && /^\/(redir|embed|view\.aspx)$/i.test(direct.pathname)) direct.pathname = '/download';
      else if (direct.hostname !== '1drv.ms') direct.searchParams.set('download', '1');
      return direct;
    default:
      return direct;
  }
}

/** `/file/d/<id>/view`, `/open?id=<id>` and `/uc?id=<id>` all become `/uc?export=download&id=<id>`. */
function googleDriveDownload(url: URL): URL {
  const id = /^\/file\/d\/([\w-]+)/.exec(url.pathname)?.[1] ?? (/^\/(open|uc)$/.test(url.pathname) ? url.searchParams.get('id') : null);
  if (!id || !/^[\w-]+$/.test(id)) {
    throw new ApiError(
      'source_unreadable',
      'This Google Drive link does not name one file; share the file itself (drive.google.com/file/d/<id>/view).',
      'source_url',
    );
  }
  const direct = new URL('https://drive.google.com/uc');
  direct.searchParams.set('export', 'download');
  direct.searchParams.set('id', id);
  // confirm=t skips the "cannot scan this file for viruses" page Google shows for large files.
  direct.searchParams.set('confirm', 't');
  const resourceKey = url.searchParams.get('resourcekey');
  if (resourceKey) direct.searchParams.set('resourcekey', resourceKey);
  return direct;
}

/**
 * The URL to download a storage link from. A 1drv.ms short link is expanded first (redirects
 * read one at a time through the outbound client, each hop checked): its target must stay on
 * OneDrive, where the download form applies.
 */
export async function resolveStorageLink(url: URL, provider: BuiltInProvider, outbound: OutboundClient): Promise<URL> {
  let current = url;
  for (let hops = 0; current.hostname === '1drv.ms'; hops += 1) {
    const response = await outbound.fetch({ url: current, method: 'GET', redirect: 'manual', maxBytes: 64 * 1024, overflow: 'truncate' });
    const location = response.headers.location;
    if (hops === MAX_REDIRECTS || response.status < 300 || response.status > 399 || !location) {
      throw new ApiError('source_unreadable', 'The OneDrive short link did not lead to a shared file.', 'source_url');
    }
    current = new URL(location, current);
    if (current.protocol !== 'https:' || providerForHost(current.hostname)?.id !== 'onedrive') {
      throw new ApiError('untrusted_source_url', 'The OneDrive short link leads outside OneDrive.', 'source_url');
    }
  }
  return directDownloadUrl(current, provider);
}
