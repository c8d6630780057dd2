import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/adapters/table/definition.js';

/**
 * The service's single DynamoDB table, built from the definition the local host also uses, so
 * both hosts create the same keys, TTL attribute and indexes.
 */
export class ServiceTable extends Table {
  /** Whether grants on the table also cover `index/*` (cdk-nag IAM5 must then be acknowledged). */
  public readonly hasIndexes = tableDefinition.globalSecondaryIndexes.length > 0;

  public constructor(scope: Construct, id: string) {
    super(scope, id, {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      // The outbox relay reads new outbox items from the stream (infra/constructs/event-delivery.ts).
      stream: StreamViewType.NEW_IMAGE,
      // Accounts, wallets and ledgers live here: deleting the stack must never delete them, and
      // nothing else may delete the table either (the console, the API) until protection is lifted.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });

    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
