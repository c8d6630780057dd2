import { tracedWith } from '../shared/tracer.js';
import { s3 } from './media.js';
import { dynamoDbClients } from './table.js';

/** The analysis tasks' tracing: each call to the media bucket and the table becomes a subsegment. */
export const traced = tracedWith(() => [s3(), dynamoDbClients().dynamo]);
