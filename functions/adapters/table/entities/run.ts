import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { RunRecord } from '../../../domain/runs/model.js';

export const runEntity = defineEntity({
  name: 'run',
  keys: { PK: ACCOUNT_PARTITION, SK: 'RUN#{runId}' },
  // startedAt and completedAt stay absent until set, so if_not_exists can set them once.
  toItem: ({ startedAt: _started, completedAt: _completed, ...run }: RunRecord) => ({ fields: run, attributes: run }),
  toRecord: (attributes): RunRecord => {
    const run = attributes as unknown as RunRecord;
    return { ...run, startedAt: run.startedAt ?? null, completedAt: run.completedAt ?? null };
  },
});
