import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { cdkJsonContext, checkPersistedContext } from './deployment-context.js';
import { MediaScannerStack } from './stack.js';

export interface ServiceApp {
  readonly app: App;
  readonly stack: MediaScannerStack;
}

export interface ServiceAppProps extends AppProps {
  /** cdk.json's "context", which persisted settings must match (deployment-context.ts). @default read from cdk.json */
  readonly committedContext?: Readonly<Record<string, unknown>>;
}

/**
 * The CDK app with its one stack and the cdk-nag AwsSolutions checks, which run as a policy
 * validation plugin during synthesis. Shared by the CLI entry point (app.ts) and the infra tests.
 */
export function createApp({ committedContext = cdkJsonContext(), ...props }: ServiceAppProps = {}): ServiceApp {
  const app = new App(props);
  const stack = new MediaScannerStack(app, 'MediaScanner', {
    description: 'Media Scanner Service: HTTP API, functions, workflows, table, media bucket and event bus',
  });
  // After the stack, which names an invalid setting first; this then refuses valid ones cdk.json does not hold.
  checkPersistedContext(app.node, committedContext);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
