/**
 * The table's layout as it is on disk: every entity's keys, spelled out literally, so that no
 * change to an entity can move an item a running host already stored.
 */
import { describe, expect, it } from 'vitest';
import { accountEntity } from '../../../../functions/adapters/table/entities/account.js';
import { admittedRunsKeys } from '../../../../functions/adapters/table/entities/admitted-runs.js';
import { analysesFrom, analysisEntity } from '../../../../functions/adapters/table/entities/analysis.js';
import { apiKeyEntity } from '../../../../functions/adapters/table/entities/api-key.js';
import { batchEntity } from '../../../../functions/adapters/table/entities/batch.js';
import { batchItemEntity } from '../../../../functions/adapters/table/entities/batch-item.js';
import { capacityWaiterEntity } from '../../../../functions/adapters/table/entities/capacity-waiter.js';
import { idClaimEntity } from '../../../../functions/adapters/table/entities/id-claim.js';
import { idempotencyRecordKeys } from '../../../../functions/adapters/table/entities/idempotency-record.js';
import { ledgerEntryEntity } from '../../../../functions/adapters/table/entities/ledger-entry.js';
import { momentEntity } from '../../../../functions/adapters/table/entities/moment.js';
import { accountObservationsFrom, observationEntity } from '../../../../functions/adapters/table/entities/observation.js';
import { outboxEntryEntity } from '../../../../functions/adapters/table/entities/outbox-entry.js';
import { renderEntity } from '../../../../functions/adapters/table/entities/render.js';
import { requestBucketEntity } from '../../../../functions/adapters/table/entities/request-bucket.js';
import { runEntity } from '../../../../functions/adapters/table/entities/run.js';
import { scannerEntity } from '../../../../functions/adapters/table/entities/scanner.js';
import { scannerVersionEntity } from '../../../../functions/adapters/table/entities/scanner-version.js';
import { slotQueueEntryEntity } from '../../../../functions/adapters/table/entities/slot-queue-entry.js';
import { uploadEntity } from '../../../../functions/adapters/table/entities/upload.js';
import { dueIndexKey, webhookDeliveryEntity } from '../../../../functions/adapters/table/entities/webhook-delivery.js';
import { webhookEndpointEntity } from '../../../../functions/adapters/table/entities/webhook-endpoint.js';
import { webhookEndpointCountEntity } from '../../../../functions/adapters/table/entities/webhook-endpoint-count.js';
import type { WebhookDeliveryRecord } from '../../../../functions/domain/webhooks/model.js';

const a = 'acct_1';
const P = `ACCT#${a}`;

const all = [
  accountEntity,
  admittedRunsKeys,
  analysisEntity,
  apiKeyEntity,
  batchEntity,
  batchItemEntity,
  capacityWaiterEntity,
  idClaimEntity,
  idempotencyRecordKeys,
  ledgerEntryEntity,
  momentEntity,
  observationEntity,
  outboxEntryEntity,
  renderEntity,
  requestBucketEntity,
  runEntity,
  scannerEntity,
  scannerVersionEntity,
  slotQueueEntryEntity,
  uploadEntity,
  webhookDeliveryEntity,
  webhookEndpointEntity,
  webhookEndpointCountEntity,
];

describe('table entities', () => {
  it('key every item exactly as the table holds it', () => {
    expect([
      apiKeyEntity.key({ keyHash: 'h' }),
      accountEntity.key({ accountId: a }),
      requestBucketEntity.key({ accountId: a }),
      scannerEntity.key({ accountId: a, scannerId: 'scn_1' }),
      scannerVersionEntity.key({ accountId: a, scannerId: 'scn_1', version: 12 }),
      ledgerEntryEntity.key({ accountId: a, entryId: 'led_1' }),
      uploadEntity.key({ accountId: a, uploadId: 'upl_1' }),
      runEntity.key({ accountId: a, runId: 'run_1' }),
      analysisEntity.key({ accountId: a, analysisId: 'ana_1' }),
      batchEntity.key({ accountId: a, batchId: 'bat_1' }),
      batchItemEntity.key({ accountId: a, batchId: 'bat_1', index: 7 }),
      slotQueueEntryEntity.key({ accountId: a, runId: 'run_1' }),
      admittedRunsKeys.key({}),
      capacityWaiterEntity.key({ accountId: a }),
      observationEntity.key({ accountId: a, runId: 'run_1', rank: 3 }),
      momentEntity.key({ accountId: a, analysisId: 'ana_1', rank: 12 }),
      idempotencyRecordKeys.key({ accountId: a, scopedKey: 'k' }),
      idClaimEntity.key({ accountId: a, purpose: 'analysis', keyHash: 'h' }),
      outboxEntryEntity.key({ accountId: a, eventId: 'evt_1' }),
      webhookEndpointEntity.key({ accountId: a, endpointId: 'whe_1' }),
      webhookEndpointCountEntity.key({ accountId: a }),
      webhookDeliveryEntity.key({ accountId: a, deliveryId: 'dlv_1' }),
      renderEntity.key({ accountId: a, renderId: 'rnd_1' }),
    ]).toEqual([
      { PK: 'APIKEY#h', SK: 'APIKEY' },
      { PK: P, SK: 'ACCOUNT' },
      { PK: P, SK: 'REQUESTBUCKET' },
      { PK: P, SK: 'SCN#scn_1' },
      { PK: P, SK: 'SCNV#scn_1#0000000012' },
      { PK: P, SK: 'LEDGER#led_1' },
      { PK: P, SK: 'UPL#upl_1' },
      { PK: P, SK: 'RUN#run_1' },
      { PK: P, SK: 'ANA#ana_1' },
      { PK: P, SK: 'BAT#bat_1' },
      { PK: P, SK: 'BATITEM#bat_1#0007' },
      { PK: P, SK: 'SLOTQ#run_1' },
      { PK: 'ADMISSION', SK: 'ADMITTED' },
      { PK: 'ADMISSION', SK: 'WAITING#acct_1' },
      { PK: P, SK: 'RUNOBS#run_1#0003' },
      { PK: P, SK: 'MOM#ana_1#0012' },
      { PK: P, SK: 'IDEM#k' },
      { PK: P, SK: 'IDCLAIM#analysis#h' },
      { PK: P, SK: 'OUTBOX#evt_1' },
      { PK: P, SK: 'WHE#whe_1' },
      { PK: P, SK: 'WHECOUNT' },
      { PK: P, SK: 'DLV#dlv_1' },
      { PK: P, SK: 'RND#rnd_1' },
    ]);
  });

  it('query collections by the prefixes their keys share', () => {
    expect(scannerEntity.collection({ accountId: a })).toEqual({ PK: P, prefix: 'SCN#' });
    expect(scannerVersionEntity.collection({ accountId: a, scannerId: 'scn_1' })).toEqual({ PK: P, prefix: 'SCNV#scn_1#' });
    expect(batchItemEntity.collection({ accountId: a, batchId: 'bat_1' })).toEqual({ PK: P, prefix: 'BATITEM#bat_1#' });
    expect(capacityWaiterEntity.collection({})).toEqual({ PK: 'ADMISSION', prefix: 'WAITING#' });
    expect(analysesFrom(a, 'ana_5')).toEqual({ PK: P, prefix: 'ANA#', from: 'ANA#ana_5' });
    expect(accountObservationsFrom(a)).toEqual({ index: 'GSI1', PK: `${P}#OBS`, prefix: 'obs_' });
    expect(outboxEntryEntity.indexCollection({}).PK).toBe('OUTBOX');
    expect(webhookDeliveryEntity.indexCollection({}).PK).toBe('WEBHOOK#DUE');
  });

  it('give no two kinds of item in one partition a sort key the other collection would read', () => {
    const fixed = (template: string) => template.split('{')[0]!;
    for (const one of all) {
      for (const other of all) {
        if (one === other || one.templates.PK !== other.templates.PK) continue;
        expect(fixed(other.templates.SK).startsWith(fixed(one.templates.SK)), `${one.templates.SK} / ${other.templates.SK}`).toBe(false);
      }
    }
  });

  it('write the tag, the keys, GSI1 keys only while their fields have values, and the TTL; and read the record back without them', () => {
    const delivery = {
      accountId: a,
      deliveryId: 'dlv_1',
      status: 'pending',
      nextAttemptAt: '2026-01-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
    } as WebhookDeliveryRecord;
    const pending = webhookDeliveryEntity.item(delivery);
    expect(pending).toEqual({
      PK: P,
      SK: 'DLV#dlv_1',
      GSI1PK: 'WEBHOOK#DUE',
      GSI1SK: '2026-01-01T00:00:00.000Z#dlv_1',
      entity: 'webhook_delivery',
      ...delivery,
      ttl: 1767225600 + 30 * 86_400,
    });
    expect(webhookDeliveryEntity.record(pending)).toEqual(delivery);
    const delivered = webhookDeliveryEntity.item({ ...delivery, status: 'succeeded', nextAttemptAt: null });
    expect(delivered).not.toHaveProperty('GSI1PK');
    expect(dueIndexKey({ ...delivery, status: 'failed' })).toBeUndefined();
  });

  it('refuse a key with an empty slot rather than write it', () => {
    expect(() => uploadEntity.key({ accountId: a } as never)).toThrow(/UPL#\{uploadId\}/);
  });
});
