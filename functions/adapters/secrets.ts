import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** A Secrets Manager secret's string value (the cursor key, an engine's API key). */
export async function readSecretString(client: SecretsManagerClient, secretId: string): Promise<string> {
  // Loaded at the first read: only the functions that read a secret load the client.
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const result = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!result.SecretString) throw new Error(`The secret ${secretId} has no string value`);
  return result.SecretString;
}
