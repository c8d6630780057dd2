import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config.js';

/** The cursor HMAC key: literal on the local host, read once from Secrets Manager on AWS. */
export async function resolveCursorSecret(config: Config, secrets: SecretsManagerClient): Promise<string> {
  if (config.CURSOR_SECRET) return config.CURSOR_SECRET;
  const result = await secrets.send(new GetSecretValueCommand({ SecretId: config.CURSOR_SECRET_ARN }));
  if (!result.SecretString) throw new Error('The cursor secret has no string value');
  return result.SecretString;
}
