/**
 * The seam through which the local host's AWS call recorder (functions/local/aws-calls/) sees what
 * the service's code asks of AWS, without that code importing the recorder. Nothing is installed on
 * AWS, so there each function below costs one property read. The hooks live on `globalThis` under a
 * registered symbol: a container task's child process runs a bundle with its own copy of this
 * module, and the recorder preloaded into it still finds them.
 */

/** An AWS API call that the local host answers in-process instead of sending it (the in-process event bus, the literal cursor key). */
export interface StandInCall {
  /** As the SDK names them: `SecretsManagerClient`, `GetSecretValueCommand`. */
  readonly clientName: string;
  readonly commandName: string;
  /**
   * The input the call would have on AWS. A resource whose AWS name lives in a configuration
   * variable the local host leaves unset is named `${VARIABLE}` (e.g. `${EVENT_BUS_NAME}`).
   */
  readonly input: Readonly<Record<string, unknown>>;
}

interface AwsCallHooks {
  /** Called with every SDK client the service builds (it adds its middleware). */
  readonly client?: (client: object) => void;
  readonly standIn?: (call: StandInCall) => void;
}

const HOOKS = Symbol.for('media-scanner.aws-call-hooks');
type WithHooks = { [HOOKS]?: AwsCallHooks };

const installed = (): AwsCallHooks | undefined => (globalThis as WithHooks)[HOOKS];

/** The recorder's, for this process (undefined: none). */
export function installAwsCallHooks(hooks: AwsCallHooks | undefined): void {
  (globalThis as WithHooks)[HOOKS] = hooks;
}

/** Every SDK client the service builds passes through here once, as it is built. */
export function instrumentClient<T extends object>(client: T): T {
  installed()?.client?.(client);
  return client;
}

/** Where an in-process stand-in replaces an AWS call: `call` is only built when a recorder listens. */
export function reportStandInCall(call: () => StandInCall): void {
  const standIn = installed()?.standIn;
  if (standIn) standIn(call());
}
