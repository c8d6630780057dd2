import middy from '@middy/core';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { lazy } from './memo.js';

/**
 * X-Ray subsegments for the tasks that do the long, external work (signals, engines, results).
 * Every function already has Lambda's own segment (active tracing) joined to the execution's
 * trace by Step Functions; this adds the handler and each AWS call. The Tracer library (X-Ray SDK)
 * is about 130 KB, so only these tasks carry it. Off outside Lambda (the local host, tests).
 */
const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'media-scanner' });

/**
 * A wrapper that traces a task handler and each AWS call of `clients`. The composition that owns
 * the clients passes them (this floor imports none); they are read and captured at the first
 * invocation, when the configuration is read.
 */
export function tracedWith(clients: () => readonly object[]) {
  const captureClients = lazy(() => {
    for (const client of clients()) tracer.captureAWSv3Client(client);
  });
  return <E, R>(handler: (event: E) => Promise<R>) =>
    middy((event: E) => {
      captureClients();
      return handler(event);
    }).use(captureLambdaHandler(tracer, { captureResponse: false }));
}
