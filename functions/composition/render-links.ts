import type { ObjectSigner } from '../domain/renders/links.js';
import { media } from './media.js';

/** Signed download links of assets (GET /v1/renders...); only the reading routes carry the media store. */
export const assetSigner: ObjectSigner = (objectKey, expiresInSeconds) => media().signGet(objectKey, expiresInSeconds);
