import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { cdkJsonContext, checkPersistedContext } from './deployment-context.js';
import { MediaScannerStack } from './stack.js';

export interface ServiceApp {
  readonly app: App;
  readonly stack: MediaScannerStack;
}

interface ServiceAppProps extends AppProps {
  /** cdk.json's "context", which persisted settings must match (deployment-context.ts). @default read from cdk.json */
  readonly committedContext?: Readonly<Record<string, unknown>>;
}

/**
 * The CDK app with its one stack and the cdk-nag AwsSolutions checks, which run as a policy
 * validation plugin during synthesis. Shared by the CLI entry point (app.ts) and the infra tests.
 */
export function createApp({ committedContext = cdkJsonContext(), ...props }: ServiceAppProps = {}): ServiceApp {
  const app = new App(props);
  // Before the stack, whose construction bundles every function: a setting cdk.json does not hold fails at once.
  checkPersistedContext(app.node, committedContext);
  const stack = new MediaScannerStack(app, 'MediaScanner', {
    description: 'Media Scanner Service: HTTP API, functions, workflows, table, media bucket and event bus',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
