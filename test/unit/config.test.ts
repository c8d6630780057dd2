import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig, POCKETSPHINX_DEFAULTS } from '../../functions/config.js';
import { standInPocketsphinx } from '../helpers/unit-fixtures.js';

const minimal = { TABLE_NAME: 'table', MEDIA_BUCKET: 'bucket' };
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
      SIGNALS_RUNNER: 'auto',
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
    ['TABLE_NAME', { MEDIA_BUCKET: 'b' }],
    ['TABLE_NAME', { ...minimal, TABLE_NAME: '' }],
    ['MEDIA_BUCKET', { TABLE_NAME: 't' }],
    ['CURSOR_SECRET_ARN', { TABLE_NAME: 't', MEDIA_BUCKET: 'b', CURSOR_SECRET_ARN: 'my-secret' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '51' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '0' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: 'lots' }],
    ['MAX_OBSERVATIONS_CAP', { ...minimal, MAX_OBSERVATIONS_CAP: '2.5' }],
    ['IDEMPOTENCY_TTL_SECONDS', { ...minimal, IDEMPOTENCY_TTL_SECONDS: '59' }],
    ['DYNAMODB_ENDPOINT', { ...minimal, DYNAMODB_ENDPOINT: 'not a url' }],
    ['S3_ENDPOINT', { ...minimal, S3_ENDPOINT: 'localhost' }],
    ['LOG_LEVEL', { ...minimal, LOG_LEVEL: 'VERBOSE' }],
    ['SIGNALS_RUNNER', { ...minimal, SIGNALS_RUNNER: 'fargate' }],
  ])('fails loudly naming %s', (variable, env) => {
    const message = failure(env);
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).toContain(variable);
  });

  it('names every bad variable at once', () => {
    const message = failure({ MAX_OBSERVATIONS_CAP: '99' });
    for (const variable of ['TABLE_NAME', 'MEDIA_BUCKET', 'MAX_OBSERVATIONS_CAP']) expect(message).toContain(variable);
  });

  it('takes the cursor secret as a Secrets Manager ARN (read only by the functions that page lists)', () => {
    expect(parseConfig({ ...minimal, CURSOR_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor' }).CURSOR_SECRET_ARN).toMatch(/^arn:/);
  });

  it('allows loopback outbound targets on the local host only', () => {
    expect(parseConfig({ ...minimal, HOST_KIND: 'local', LOCAL_ALLOW_LOOPBACK_TARGETS: '1' }).host).toEqual({ kind: 'local', allowLoopbackTargets: true });
    expect(parseConfig(minimal).host).toEqual({ kind: 'aws', allowLoopbackTargets: false });
    expect(failure({ ...minimal, LOCAL_ALLOW_LOOPBACK_TARGETS: '1' })).toContain('LOCAL_ALLOW_LOOPBACK_TARGETS: is for the local host only');
    // The stand-ins' endpoints do not make a host local: HOST_KIND does, which the local host sets.
    expect(failure({ ...minimal, S3_ENDPOINT: 'http://127.0.0.1:4569', LOCAL_ALLOW_LOOPBACK_TARGETS: '1' })).toContain(
      'LOCAL_ALLOW_LOOPBACK_TARGETS: is for the local host only',
    );
    expect(failure({ ...minimal, HOST_KIND: 'laptop' })).toContain('HOST_KIND');
  });

  it('compresses the webhook retry schedule on the local host only, by a factor in (0, 1]', () => {
    const local = { ...minimal, HOST_KIND: 'local' };
    expect(parseConfig(minimal).WEBHOOK_RETRY_SCALE).toBe(1);
    expect(parseConfig({ ...local, WEBHOOK_RETRY_SCALE: '0.0001' }).WEBHOOK_RETRY_SCALE).toBe(0.0001);
    expect(failure({ ...minimal, WEBHOOK_RETRY_SCALE: '0.5' })).toContain('WEBHOOK_RETRY_SCALE: is for the local host only');
    for (const bad of ['0', '2', 'fast']) expect(failure({ ...local, WEBHOOK_RETRY_SCALE: bad })).toContain('WEBHOOK_RETRY_SCALE');
  });

  it('accepts loopback endpoints for the local host', () => {
    const config = parseConfig({ ...minimal, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', S3_ENDPOINT: 'http://127.0.0.1:4569' });
    expect(config.DYNAMODB_ENDPOINT).toBe('http://127.0.0.1:8000');
  });

  it('never echoes a value in an error', () => {
    const secret = 'sk-short-secret-value';
    expect(failure({ ...minimal, OPENAI_API_KEY: secret, ANALYZER: 'openai' })).not.toContain(secret);
  });
});

describe('parseConfig: analyzer and transcriber', () => {
  const openai = { ANALYZER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3.1' };
  const whisper = { WHISPER_CPP_BIN: '/opt/whisper.cpp/build/bin/whisper-cli', WHISPER_MODEL: '/opt/models/ggml-base.en.bin' };
  const localHost = { HOST_KIND: 'local' };

  it('defaults to the local analyzer, no transcriber and en-US', () => {
    expect(parseConfig(minimal)).toMatchObject({ ANALYZER: 'local', TRANSCRIBER: 'none', TRANSCRIBE_LANGUAGE_CODE: 'en-US' });
  });

  it('accepts each engine with what it needs', () => {
    expect(parseConfig({ ...minimal, ANALYZER: 'bedrock', BEDROCK_MODEL_ID: 'anthropic.claude-3-5-haiku-20241022-v1:0' }).ANALYZER).toBe('bedrock');
    expect(parseConfig({ ...minimal, ...openai, OPENAI_API_KEY: 'sk-test' })).toMatchObject({ ANALYZER: 'openai', OPENAI_MODEL: 'llama3.1' });
    expect(parseConfig({ ...minimal, ...openai, OPENAI_API_KEY_SECRET_ID: 'media-scanner/openai' }).OPENAI_API_KEY_SECRET_ID).toBe('media-scanner/openai');
    expect(parseConfig({ ...minimal, TRANSCRIBER: 'aws-transcribe', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' })).toMatchObject({
      TRANSCRIBER: 'aws-transcribe',
      TRANSCRIBE_LANGUAGE_CODE: 'de-DE',
    });
    expect(parseConfig({ ...minimal, TRANSCRIBER: 'moonshine', TRANSCRIBE_LANGUAGE_CODE: 'en-GB', SPEECH_MODEL_DIR: '/opt/speech' })).toMatchObject({
      TRANSCRIBER: 'moonshine',
      SPEECH_MODEL_DIR: '/opt/speech',
    });
  });

  it('uses whisper.cpp once its binary and model are set, unless told otherwise', () => {
    expect(parseConfig({ ...minimal, ...whisper }).TRANSCRIBER).toBe('whisper-cpp');
    expect(parseConfig({ ...minimal, ...whisper, TRANSCRIBER: 'none' }).TRANSCRIBER).toBe('none');
  });

  it.each([
    ['ANALYZER', { ...minimal, ANALYZER: 'gpt' }],
    ['BEDROCK_MODEL_ID', { ...minimal, ANALYZER: 'bedrock' }],
    ['OPENAI_BASE_URL', { ...minimal, ...openai, OPENAI_BASE_URL: undefined }],
    ['OPENAI_BASE_URL', { ...minimal, ...openai, OPENAI_BASE_URL: 'localhost:11434' }],
    ['OPENAI_MODEL', { ...minimal, ...openai, OPENAI_MODEL: undefined }],
    ['OPENAI_API_KEY_SECRET_ID', { ...minimal, ...openai, OPENAI_API_KEY: 'sk-test', OPENAI_API_KEY_SECRET_ID: 'media-scanner/openai' }],
    ['TRANSCRIBER', { ...minimal, TRANSCRIBER: 'whisper' }],
    ['WHISPER_MODEL', { ...minimal, TRANSCRIBER: 'whisper-cpp', WHISPER_CPP_BIN: whisper.WHISPER_CPP_BIN }],
    ['WHISPER_CPP_BIN', { ...minimal, WHISPER_MODEL: whisper.WHISPER_MODEL }],
    ['TRANSCRIBE_LANGUAGE_CODE', { ...minimal, TRANSCRIBE_LANGUAGE_CODE: 'english' }],
    // The local host's AWS credentials are its stand-ins', and Transcribe cannot read its S3.
    ['ANALYZER', { ...minimal, ...localHost, ANALYZER: 'bedrock', BEDROCK_MODEL_ID: 'amazon.nova-lite-v1:0' }],
    ['TRANSCRIBER', { ...minimal, ...localHost, TRANSCRIBER: 'aws-transcribe' }],
    // Its model is English only: other languages need Amazon Transcribe.
    ['TRANSCRIBE_LANGUAGE_CODE', { ...minimal, TRANSCRIBER: 'moonshine', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' }],
  ])('fails loudly naming %s', (variable, env) => {
    const message = failure(env);
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).toContain(variable);
  });

  it('names every missing engine setting at once', () => {
    const message = failure({ ...minimal, ANALYZER: 'openai', TRANSCRIBER: 'whisper-cpp' });
    for (const variable of ['OPENAI_BASE_URL', 'OPENAI_MODEL', 'WHISPER_CPP_BIN', 'WHISPER_MODEL']) expect(message).toContain(variable);
  });

  it('never echoes the OpenAI key in an error', () => {
    expect(failure({ ...minimal, ...openai, OPENAI_API_KEY: 'sk-very-secret', OPENAI_API_KEY_SECRET_ID: 'id' })).not.toContain('sk-very-secret');
  });
});

describe('parseConfig: pocketsphinx', () => {
  const { root, bin, modelDir } = standInPocketsphinx();
  const installed = { TRANSCRIBER: 'pocketsphinx', POCKETSPHINX_BIN: bin, POCKETSPHINX_MODEL_DIR: modelDir };

  it('is never chosen by default; its paths default to where Debian installs it', () => {
    expect(parseConfig(minimal).TRANSCRIBER).toBe('none');
    expect(parseConfig(minimal)).toMatchObject({ POCKETSPHINX_BIN: POCKETSPHINX_DEFAULTS.bin, POCKETSPHINX_MODEL_DIR: POCKETSPHINX_DEFAULTS.modelDir });
  });

  it('accepts an installed binary and a complete model directory', () => {
    expect(parseConfig({ ...minimal, ...installed })).toMatchObject({ TRANSCRIBER: 'pocketsphinx', POCKETSPHINX_BIN: bin });
  });

  it.each([
    ['POCKETSPHINX_BIN', { ...installed, POCKETSPHINX_BIN: join(root, 'missing') }],
    ['POCKETSPHINX_MODEL_DIR', { ...installed, POCKETSPHINX_MODEL_DIR: root }],
    ['TRANSCRIBE_LANGUAGE_CODE', { ...installed, TRANSCRIBE_LANGUAGE_CODE: 'de-DE' }],
  ])('fails loudly naming %s, with how to install it', (variable, env) => {
    const message = failure({ ...minimal, ...env });
    expect(message).toContain(variable);
    if (variable !== 'TRANSCRIBE_LANGUAGE_CODE') expect(message).toContain('apt-get install -y pocketsphinx pocketsphinx-en-us');
  });
});
