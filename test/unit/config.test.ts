import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../functions/config.js';

const minimal = { TABLE_NAME: 'table', MEDIA_BUCKET: 'bucket', CURSOR_SECRET: 's'.repeat(32) };
const failure = (env: NodeJS.ProcessEnv): string => {
  try {
    parseConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected parseConfig to fail');
};

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    expect(parseConfig(minimal)).toMatchObject({
      ...minimal,
      AWS_REGION: 'us-east-1',
      MAX_OBSERVATIONS_CAP: 50,
      IDEMPOTENCY_TTL_SECONDS: 86_400,
      LOG_LEVEL: 'INFO',
    });
  });

  it('coerces numbers from strings and keeps only known settings', () => {
    const config = parseConfig({ ...minimal, MAX_OBSERVATIONS_CAP: '20', IDEMPOTENCY_TTL_SECONDS: '3600', PATH: '/usr/bin', HOME: '/root' });
    expect(config.MAX_OBSERVATIONS_CAP).toBe(20);
    expect(config.IDEMPOTENCY_TTL_SECONDS).toBe(3600);
    expect(config).not.toHaveProperty('PATH');
  });

  it('is frozen', () => {
    expect(Object.isFrozen(parseConfig(minimal))).toBe(true);
  });

  it.each([
    ['TABLE_NAME', { MEDIA_BUCKET: 'b', CURSOR_SECRET: 's'.repeat(32) }],
    ['TABLE_NAME', { ...minimal, TABLE_NAME: '' }],
    ['MEDIA_BUCKET', { TABLE_NAME: 't', CURSOR_SECRET: 's'.repeat(32) }],
    ['CURSOR_SECRET', { ...minimal, CURSOR_SECRET: 's'.repeat(31) }],
    ['CURSOR_SECRET_ARN', { TABLE_NAME: 't', MEDIA_BUCKET: 'b', CURSOR_SECRET_ARN: 'my-secret' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '51' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '0' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: 'lots' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '2.5' }],
    ['IDEMPOTENCY_TTL_SECONDS', { ...minimal, IDEMPOTENCY_TTL_SECONDS: '59' }],
    ['DYNAMODB_ENDPOINT', { ...minimal, DYNAMODB_ENDPOINT: 'not a url' }],
    ['S3_ENDPOINT', { ...minimal, S3_ENDPOINT: 'localhost' }],
    ['LOG_LEVEL', { ...minimal, LOG_LEVEL: 'VERBOSE' }],
  ])('fails loudly naming %s', (variable, env) => {
    const message = failure(env);
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).toContain(variable);
  });

  it('names every bad variable at once', () => {
    const message = failure({ CURSOR_SECRET: 's'.repeat(32), MAX_OBSERVATIONS_CAP: '99' });
    for (const variable of ['TABLE_NAME', 'MEDIA_BUCKET', 'MAX_OBSERVATIONS_CAP']) expect(message).toContain(variable);
  });

  it('needs CURSOR_SECRET or CURSOR_SECRET_ARN', () => {
    const message = failure({ TABLE_NAME: 't', MEDIA_BUCKET: 'b' });
    expect(message).toContain('CURSOR_SECRET');
    expect(message).toContain('CURSOR_SECRET_ARN');
    expect(parseConfig({ TABLE_NAME: 't', MEDIA_BUCKET: 'b', CURSOR_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor' }).CURSOR_SECRET_ARN).toMatch(/^arn:/);
  });

  it('accepts loopback endpoints for the local host', () => {
    const config = parseConfig({ ...minimal, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', S3_ENDPOINT: 'http://127.0.0.1:4569' });
    expect(config.DYNAMODB_ENDPOINT).toBe('http://127.0.0.1:8000');
  });

  it('never echoes the secret in an error', () => {
    const secret = 'short-secret-value';
    expect(failure({ ...minimal, CURSOR_SECRET: secret })).not.toContain(secret);
  });
});
