/** Which engine each configuration gets, built from the settings it names. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GetObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetTranscriptionJobCommand, TranscribeClient } from '@aws-sdk/client-transcribe';
import { analyzerFor, transcriberFor } from '../../../../functions/adapters/engines.js';
import { readSecretString } from '../../../../functions/adapters/secrets.js';
import { noTranscriber } from '../../../../functions/adapters/signals/no-transcriber.js';
import { transcriptionJobName } from '../../../../functions/adapters/transcribers/aws-transcribe.js';
import { parseConfig } from '../../../../functions/config.js';
import { transcribesByJob } from '../../../../functions/domain/engine/signals.js';
import { groundTruthAudio } from '../../../helpers/ground-truth-media.js';
import { audioSignals, chatCompletion, scanner, startFakeChatServer, writeFakeWhisperCli, type FakeChatServer } from './fixtures.js';

const BUCKET = 'media-bucket';
const KEY = 'accounts/acct_1/uploads/upl_1';
const base = { TABLE_NAME: 'table', MEDIA_BUCKET: BUCKET, CURSOR_SECRET: 's'.repeat(32), AWS_REGION: 'eu-west-1' };
const summarizer = scanner('summarizer', 'Summarise the recording');
const answer = JSON.stringify({ status: 'answered', findings: [{ value: 'Talk, then music.', relevance_score: 1 }] });

const bedrockMock = mockClient(BedrockRuntimeClient);
const transcribeMock = mockClient(TranscribeClient);
const s3Mock = mockClient(S3Client);
const secretsMock = mockClient(SecretsManagerClient);
const clients = { s3: new S3Client({ region: 'eu-west-1' }) };
const readSecret = (secretId: string) => readSecretString(new SecretsManagerClient({ region: 'eu-west-1' }), secretId);

let chat: FakeChatServer;
let workDir: string;
beforeAll(async () => {
  chat = await startFakeChatServer();
  workDir = await mkdtemp(join(tmpdir(), 'engines-test-'));
});
afterAll(async () => {
  for (const mock of [bedrockMock, transcribeMock, s3Mock, secretsMock]) mock.restore();
  await chat.close();
  await rm(workDir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const mock of [bedrockMock, transcribeMock, s3Mock, secretsMock]) mock.reset();
  chat.received.length = 0;
  chat.replies = [{ status: 200, body: chatCompletion(answer) }];
});

describe('analyzerFor', () => {
  it('is the local analyzer by default', () => {
    expect(analyzerFor(parseConfig(base), readSecret).name).toBe('local');
  });

  it('asks the configured Bedrock model', async () => {
    bedrockMock
      .on(ConverseCommand)
      .resolves({ output: { message: { role: 'assistant', content: [{ text: answer }] } }, stopReason: 'end_turn', usage: undefined, metrics: undefined });
    const analyzer = analyzerFor(parseConfig({ ...base, ANALYZER: 'bedrock', BEDROCK_MODEL_ID: 'amazon.nova-lite-v1:0' }), readSecret);

    expect(analyzer.name).toBe('bedrock');
    await expect(analyzer.analyze({ scanner: summarizer, signals: audioSignals() })).resolves.toMatchObject({ status: 'answered' });
    expect(bedrockMock.commandCalls(ConverseCommand)[0]!.args[0].input.modelId).toBe('amazon.nova-lite-v1:0');
  });

  it('asks the configured OpenAI-compatible endpoint and model with the literal key', async () => {
    const analyzer = analyzerFor(
      parseConfig({ ...base, ANALYZER: 'openai', OPENAI_BASE_URL: chat.baseUrl, OPENAI_MODEL: 'llama3.1', OPENAI_API_KEY: 'sk-literal' }),
      readSecret,
    );
    await analyzer.analyze({ scanner: summarizer, signals: audioSignals() });

    expect(chat.received[0]).toMatchObject({ headers: { authorization: 'Bearer sk-literal' }, body: { model: 'llama3.1' } });
  });

  it('reads the OpenAI key from Secrets Manager once per process, and tries again after a failed read', async () => {
    secretsMock.on(GetSecretValueCommand).rejectsOnce(new Error('network down')).resolves({ SecretString: 'sk-from-secret' });
    const analyzer = analyzerFor(
      parseConfig({
        ...base,
        ANALYZER: 'openai',
        OPENAI_BASE_URL: chat.baseUrl,
        OPENAI_MODEL: 'gpt-4o-mini',
        OPENAI_API_KEY_SECRET_ID: 'media-scanner/openai',
      }),
      readSecret,
    );

    await expect(analyzer.analyze({ scanner: summarizer, signals: audioSignals() })).rejects.toThrow('network down');
    await analyzer.analyze({ scanner: summarizer, signals: audioSignals() });
    await analyzer.analyze({ scanner: summarizer, signals: audioSignals() });

    expect(secretsMock.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input)).toEqual([
      { SecretId: 'media-scanner/openai' },
      { SecretId: 'media-scanner/openai' },
    ]);
    expect(chat.received.map((r) => r.headers.authorization)).toEqual(['Bearer sk-from-secret', 'Bearer sk-from-secret']);
  });
});

describe('transcriberFor', () => {
  it('is no transcriber by default', () => {
    expect(transcriberFor(parseConfig(base), clients, BUCKET)).toBe(noTranscriber);
  });

  it('gives Amazon Transcribe, as jobs the workflow waits for, the configured language and the media bucket', async () => {
    const window = { startMs: 0, endMs: 10_000 };
    const job = transcriptionJobName('de-DE', KEY, window);
    transcribeMock.on(GetTranscriptionJobCommand).resolves({ TranscriptionJob: { TranscriptionJobName: job, TranscriptionJobStatus: 'COMPLETED' } });
    s3Mock
      .on(GetObjectCommand)
      .resolves({ Body: { transformToString: () => Promise.resolve('{"results":{"items":[]}}') } as unknown as GetObjectCommandOutput['Body'] });
    const speech = transcriberFor(parseConfig({ ...base, TRANSCRIBER: 'aws-transcribe', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' }), clients, BUCKET);
    if (!transcribesByJob(speech)) throw new Error('aws-transcribe is a job the workflow waits for');

    await expect(speech.transcript({ objectKey: KEY, window })).resolves.toEqual([]);
    expect(transcribeMock.commandCalls(GetTranscriptionJobCommand)[0]!.args[0].input).toEqual({ TranscriptionJobName: job });
    expect(s3Mock.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({ Bucket: BUCKET, Key: `artifacts/transcripts/${job}.json` });
  });

  it('runs whisper.cpp when its binary and model are set, with the language without its region', async () => {
    const whisper = await writeFakeWhisperCli(workDir, 'transcribe');
    const transcriber = transcriberFor(
      parseConfig({ ...base, WHISPER_CPP_BIN: whisper.path, WHISPER_MODEL: '/models/ggml-small.bin', TRANSCRIBE_LANGUAGE_CODE: 'de-DE' }),
      clients,
      BUCKET,
    );
    if (transcribesByJob(transcriber)) throw new Error('whisper.cpp answers within the signals step');

    const segments = (await transcriber.transcribe({ url: (await groundTruthAudio()).path, objectKey: KEY, window: { startMs: 0, endMs: 4_000 } }))!;

    expect(segments.map((s) => s.text)).toEqual(['Hello café world.', 'Goodbye.']);
    expect((await whisper.invocation())!.args).toEqual(expect.arrayContaining(['-l', 'de', '-m', '/models/ggml-small.bin']));
  }, 60_000);
});
