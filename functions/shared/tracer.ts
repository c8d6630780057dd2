import middy from '@middy/core';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { dynamoDbClients } from '../composition/table.js';
import { s3 } from '../composition/media.js';
import { lazy } from './memo.js';

/**
 * X-Ray subsegments for the tasks that do the long, external work (signals, engines, results).
 * Every function already has Lambda's own segment (active tracing) joined to the execution's
 * trace by Step Functions; this adds the handler and each AWS call. The Tracer library (X-Ray SDK)
 * is about 130 KB, so only these tasks carry it. Off outside Lambda (the local host, tests).
 */
const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'media-scanner' });

/** Each AWS call of these clients becomes a subsegment; done at the first invocation, when the configuration is read. */
const captureClients = lazy(() => {
  tracer.captureAWSv3Client(s3());
  tracer.captureAWSv3Client(dynamoDbClients().dynamo);
});

export function traced<E, R>(handler: (event: E) => Promise<R>) {
  return middy((event: E) => {
    captureClients();
    return handler(event);
  }).use(captureLambdaHandler(tracer, { captureResponse: false }));
}
