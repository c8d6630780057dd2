/** Storage links in their direct-download forms (DESIGN §10), and OneDrive short links expanded hop by hop. */
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../functions/domain/errors.js';
import { providerForHost } from '../../../../functions/domain/sources/providers.js';
import type { OutboundClient } from '../../../../functions/adapters/outbound/outbound-client.js';
import { directDownloadUrl, resolveStorageLink } from '../../../../functions/adapters/sources/storage-links.js';

function direct(raw: string): string {
  const url = new URL(raw);
  const provider = providerForHost(url.hostname);
  if (!provider) throw new Error(`no provider for ${raw}`);
  return directDownloadUrl(url, provider).href;
}

describe('directDownloadUrl', () => {
  it.each([
    ['https://www.dropbox.com/s/abc123/clip.mp4?dl=0', 'https://www.dropbox.com/s/abc123/clip.mp4?dl=1'],
    ['https://www.dropbox.com/scl/fi/abc/clip.mp4?rlkey=k1&dl=0', 'https://www.dropbox.com/scl/fi/abc/clip.mp4?rlkey=k1&dl=1'],
    ['https://www.dropbox.com/s/abc123/clip.mp4?raw=1', 'https://www.dropbox.com/s/abc123/clip.mp4?dl=1'],
    ['https://dropbox.com/s/abc123/clip.mp4', 'https://dropbox.com/s/abc123/clip.mp4?dl=1'],
    ['https://dl.dropboxusercontent.com/s/abc123/clip.mp4', 'https://dl.dropboxusercontent.com/s/abc123/clip.mp4'],
    ['https://drive.google.com/file/d/1AbC-d_E/view?usp=sharing', 'https://drive.google.com/uc?export=download&id=1AbC-d_E&confirm=t'],
    ['https://drive.google.com/file/d/1AbC-d_E/edit', 'https://drive.google.com/uc?export=download&id=1AbC-d_E&confirm=t'],
    ['https://drive.google.com/file/d/1AbC/view?resourcekey=0-xyz', 'https://drive.google.com/uc?export=download&id=1AbC&confirm=t&resourcekey=0-xyz'],
    ['https://drive.google.com/open?id=1AbC', 'https://drive.google.com/uc?export=download&id=1AbC&confirm=t'],
    ['https://drive.google.com/uc?id=1AbC&export=view', 'https://drive.google.com/uc?export=download&id=1AbC&confirm=t'],
    ['https://onedrive.live.com/redir?resid=ABC!123&authkey=!k', 'https://onedrive.live.com/download?resid=ABC!123&authkey=!k'],
    ['https://onedrive.live.com/embed?resid=ABC!123&authkey=!k', 'https://onedrive.live.com/download?resid=ABC!123&authkey=!k'],
    ['https://onedrive.live.com/?cid=ABC&id=ABC!123', 'https://onedrive.live.com/?cid=ABC&id=ABC%21123&download=1'],
    ['https://contoso-my.sharepoint.com/:v:/g/personal/a/EAbc?e=xyz', 'https://contoso-my.sharepoint.com/:v:/g/personal/a/EAbc?e=xyz&download=1'],
    [
      'https://bucket.s3.amazonaws.com/clip.mp4?X-Amz-Signature=s&X-Amz-Expires=60',
      'https://bucket.s3.amazonaws.com/clip.mp4?X-Amz-Signature=s&X-Amz-Expires=60',
    ],
    ['https://storage.googleapis.com/b/clip.mp4?X-Goog-Signature=s', 'https://storage.googleapis.com/b/clip.mp4?X-Goog-Signature=s'],
  ])('%s', (raw, expected) => {
    expect(direct(raw)).toBe(expected);
  });

  it.each(['https://drive.google.com/drive/folders/abc', 'https://drive.google.com/open', 'https://drive.google.com/file/d/'])(
    'refuses a Drive link naming no file: %s',
    (raw) => {
      expect(() => direct(raw)).toThrow(expect.objectContaining({ code: 'source_unreadable' }) as Error);
    },
  );
});

describe('resolveStorageLink', () => {
  const redirects = (...locations: (string | undefined)[]) => {
    const fetch = vi.fn();
    for (const location of locations) {
      fetch.mockResolvedValueOnce({ status: location ? 301 : 200, headers: location ? { location } : {}, body: Buffer.alloc(0) });
    }
    return { client: { fetch, stream: vi.fn(), check: vi.fn() } as unknown as OutboundClient, fetch };
  };
  const onedrive = providerForHost('1drv.ms');
  if (!onedrive) throw new Error('onedrive provider missing');

  it('expands a 1drv.ms link one manual hop at a time, then takes the download form', async () => {
    const { client, fetch } = redirects('https://1drv.ms/v/s!second', 'https://onedrive.live.com/redir?resid=ABC&authkey=!k');
    const url = await resolveStorageLink(new URL('https://1drv.ms/v/s!first'), onedrive, client);
    expect(url.href).toBe('https://onedrive.live.com/download?resid=ABC&authkey=!k');
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(fetch.mock.calls[0]?.[0]).toMatchObject({ redirect: 'manual' });
  });

  it.each([
    ['leaves OneDrive', ['https://attacker.net/clip.mp4'], 'untrusted_source_url'],
    ['drops to http', ['http://onedrive.live.com/redir?resid=ABC'], 'untrusted_source_url'],
    ['answers without a redirect', [undefined], 'source_unreadable'],
  ])('refuses a short link that %s', async (_why, locations, code) => {
    const { client } = redirects(...locations);
    const error = (await resolveStorageLink(new URL('https://1drv.ms/v/s!x'), onedrive, client).catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe(code);
  });

  it('gives up after the redirect limit', async () => {
    const { client } = redirects(...Array.from({ length: 10 }, (_, i) => `https://1drv.ms/v/s!hop${i}`));
    await expect(resolveStorageLink(new URL('https://1drv.ms/v/s!x'), onedrive, client)).rejects.toMatchObject({ code: 'source_unreadable' });
  });
});
