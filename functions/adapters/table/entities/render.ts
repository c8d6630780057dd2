import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { RenderRecord } from '../../../domain/renders/model.js';

/** A render with its assets (ids are time-ordered: render history reads newest first). */
export const renderEntity = defineEntity({
  name: 'render',
  keys: { PK: ACCOUNT_PARTITION, SK: 'RND#{renderId}' },
  toItem: (render: RenderRecord) => ({ fields: render, attributes: render }),
  toRecord: (attributes) => attributes as unknown as RenderRecord,
});
