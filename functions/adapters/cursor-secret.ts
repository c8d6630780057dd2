import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config.js';
import { reportStandInCall } from './aws-call-hooks.js';

/** The cursor HMAC key: literal on the local host, read once from Secrets Manager on AWS. */
export async function resolveCursorSecret(config: Config, secrets: SecretsManagerClient): Promise<string> {
  if (config.CURSOR_SECRET) return config.CURSOR_SECRET;
  const result = await secrets.send(new GetSecretValueCommand({ SecretId: config.CURSOR_SECRET_ARN }));
  if (!result.SecretString) throw new Error('The cursor secret has no string value');
  return result.SecretString;
}

/**
 * On AWS every function reads the secret once, at its cold start (getServices); the local host,
 * one process with a literal key, tells a call recorder each time a unit gets its services instead.
 */
export function noteCursorSecretUse(config: Config): void {
  if (!config.CURSOR_SECRET) return;
  reportStandInCall(() => ({ clientName: 'SecretsManagerClient', commandName: 'GetSecretValueCommand', input: { SecretId: config.CURSOR_SECRET_ARN ?? '${CURSOR_SECRET_ARN}' } }));
}
