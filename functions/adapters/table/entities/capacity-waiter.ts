import { defineEntity } from '../entity.js';
import { ADMISSION_PARTITION } from '../keys.js';
import type { CapacityWaiter } from '../../../domain/runs/ports.js';

/** An account with runs waiting for the deployment's capacity (written by update expressions). */
export const capacityWaiterEntity = defineEntity({
  name: 'capacity_waiter',
  keys: { PK: ADMISSION_PARTITION, SK: 'WAITING#{accountId}' },
  toRecord: ({ accountId, mark }) => ({ accountId, mark }) as CapacityWaiter,
});
