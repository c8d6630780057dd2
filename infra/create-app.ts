import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MediaScannerStack } from './stack.js';

export interface ServiceApp {
  readonly app: App;
  readonly stack: MediaScannerStack;
}

/**
 * The CDK app with its one stack and the cdk-nag AwsSolutions checks, which run as a policy
 * validation plugin during synthesis. Shared by the CLI entry point (app.ts) and the infra tests.
 */
export function createApp(props?: AppProps): ServiceApp {
  const app = new App(props);
  const stack = new MediaScannerStack(app, 'MediaScanner', {
    description: 'Media Scanner Service: HTTP API, functions, workflows, table, media bucket and event bus',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
