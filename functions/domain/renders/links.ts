import type { RenderRecord } from './model.js';

/** How long a download URL in a GET answer stays valid. */
const ASSET_URL_TTL_SECONDS = 60 * 60;

/** Signs GETs of stored objects (the media store does). */
export interface ObjectSigner {
  signGet(objectKey: string, expiresInSeconds: number): Promise<string>;
}

/** Fresh signed download links of a render's completed assets, by moment id. */
export async function assetLinks(signer: ObjectSigner, render: RenderRecord, now = new Date()): Promise<Record<string, { url: string; expiresAt: string }>> {
  const expiresAt = new Date(now.getTime() + ASSET_URL_TTL_SECONDS * 1000).toISOString();
  const entries = await Promise.all(
    Object.values(render.assets).flatMap((asset) =>
      asset.status === 'completed' ? [signer.signGet(asset.objectKey, ASSET_URL_TTL_SECONDS).then((url) => [asset.momentId, { url, expiresAt }] as const)] : [],
    ),
  );
  return Object.fromEntries(entries);
}
