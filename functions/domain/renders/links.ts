import type { RenderRecord } from './model.js';

/** How long a download URL in a GET answer stays valid. */
const ASSET_URL_TTL_SECONDS = 60 * 60;

/** Signs a GET of one stored object for `expiresInSeconds`. */
export type ObjectSigner = (objectKey: string, expiresInSeconds: number) => Promise<string>;

/** Fresh signed download links of a render's completed assets, by moment id. */
export async function assetLinks(sign: ObjectSigner, render: RenderRecord, now = new Date()): Promise<Record<string, { url: string; expiresAt: string }>> {
  const expiresAt = new Date(now.getTime() + ASSET_URL_TTL_SECONDS * 1000).toISOString();
  const entries = await Promise.all(
    Object.values(render.assets).flatMap((asset) =>
      asset.status === 'completed' ? [sign(asset.objectKey, ASSET_URL_TTL_SECONDS).then((url) => [asset.momentId, { url, expiresAt }] as const)] : [],
    ),
  );
  return Object.fromEntries(entries);
}
