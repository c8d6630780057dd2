import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config.js';
import { instrumentClient } from './aws-call-hooks.js';

/** The table's clients: the document client shares the low-level one's middleware stack. */
interface DynamoDbClients {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
}

/** One DynamoDB request as sent (SDK retries of it are not seen). */
export interface DynamoDbRequest {
  /** The API operation: `PutItem`, `Query`, `TransactWriteItems`, ... */
  operation: string;
  /** Items it writes: 1 for PutItem, UpdateItem and DeleteItem; one per entry of TransactWriteItems (condition checks included) and BatchWriteItem; 0 for reads. */
  itemsWritten: number;
}

const dynamoDbObservers = new Set<(request: DynamoDbRequest) => void>();

/**
 * Reports every DynamoDB request of the clients made here from now on, to count the table's cost
 * drivers (test/bench/costs.ts). Returns the function that stops the reports. Unobserved, a
 * request costs one empty-set check.
 */
export function observeDynamoDbRequests(listener: (request: DynamoDbRequest) => void): () => void {
  dynamoDbObservers.add(listener);
  return () => dynamoDbObservers.delete(listener);
}

const singleItemWrites = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/** The parts of TransactWriteItems' and BatchWriteItem's inputs that list their items. */
interface MultiItemWriteInput {
  TransactItems?: unknown[];
  RequestItems?: Record<string, unknown[]>;
}

function itemsWrittenBy(operation: string, input: MultiItemWriteInput): number {
  if (operation === 'TransactWriteItems') return input.TransactItems?.length ?? 0;
  if (operation === 'BatchWriteItem') return Object.values(input.RequestItems ?? {}).reduce((sum, requests) => sum + requests.length, 0);
  return singleItemWrites.has(operation) ? 1 : 0;
}

/** The local host points the SDK at its loopback stand-ins (DYNAMODB_ENDPOINT); on AWS these are the defaults. */
export function createDynamoDbClients(config: Config): DynamoDbClients {
  const dynamo = instrumentClient(
    new DynamoDBClient({ region: config.AWS_REGION, ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT } : {}) }),
  );
  // The document client shares this stack, so its commands are seen too (under the operation names).
  dynamo.middlewareStack.add(
    (next, context) => (args) => {
      if (dynamoDbObservers.size) {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        const request = { operation, itemsWritten: itemsWrittenBy(operation, args.input as MultiItemWriteInput) };
        for (const observer of dynamoDbObservers) observer(request);
      }
      return next(args);
    },
    { step: 'initialize', name: 'observeDynamoDbRequests' },
  );
  const doc = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { dynamo, doc };
}
