/**
 * Provider pages through the provider-resolver function (functions/provider-resolver/handler.py):
 * its handler run as the local host runs it (python3, a child process) with the yt-dlp stand-in
 * test/helpers/fake-yt-dlp.js as YT_DLP_PATH, and the Lambda invocation the AWS host makes,
 * against a mocked Lambda client.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installAwsCallHooks, type StandInCall } from '../../../../functions/adapters/aws-call-hooks.js';
import { lambdaProviderResolver } from '../../../../functions/adapters/sources/lambda-provider-resolver.js';
import { localPython, processProviderResolver } from '../../../../functions/adapters/sources/process-provider-resolver.js';
import { providerPageResolver } from '../../../../functions/adapters/sources/provider-resolution.js';
import { providerForHost } from '../../../../functions/domain/sources/providers.js';
import type { SourceOrigin } from '../../../../functions/domain/sources/ports.js';
import { apiErrorOf, fakeYtDlpPath, gatewayFixture, localProviderPages, resolverContract, resolverHandlerPath, type GatewayFixture } from './support.js';

const youtube = providerForHost('www.youtube.com');
if (!youtube) throw new Error('youtube provider missing');
const origin: SourceOrigin = { kind: 'provider', provider: youtube };
const page = (id: string) => new URL(`https://www.youtube.com/watch?v=${id}`);
const clipFacts = { mediaKind: 'video', durationMs: 3000, sizeBytes: 70_000, title: 'Fake clip clip' };

/** The handler's raw answer, as the function returns it. */
async function handlerAnswer(id: string, env: Record<string, string> = { YT_DLP_PATH: fakeYtDlpPath }): Promise<unknown> {
  const { stdout } = await promisify(execFile)('python3', [resolverHandlerPath, '--timeout-seconds', '20', page(id).href], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return JSON.parse(stdout) as unknown;
}

describe('the resolver handler, run as the local host runs it', () => {
  let env: GatewayFixture;
  beforeAll(async () => {
    env = await gatewayFixture({ ytDlpPath: fakeYtDlpPath });
  });
  afterAll(() => env.dispose());

  it("answers a preflight with the page's duration, size of the chosen formats and title", async () => {
    expect(await env.gateway.preflight(page('clip'), origin)).toEqual(clipFacts);
    expect(await env.leftovers()).toEqual([]);
  });

  it.each([
    ['audio_only', /no video stream/],
    ['live', /Live streams/],
    ['playlist', /playlist/],
    ['unavailable', /Video unavailable\. This video is private/],
  ])('%s: 422 source_unreadable', async (id, message) => {
    const error = await apiErrorOf(env.gateway.preflight(page(id), origin));
    expect(error).toMatchObject({ code: 'source_unreadable', status: 422 });
    expect(error.message).toMatch(message);
  });

  it("never passes on yt-dlp's URLs or the page's id", async () => {
    const error = await apiErrorOf(env.gateway.preflight(page('unavailable'), origin));
    expect(error.message).not.toMatch(/SECRET|https?:|\[youtube\]|unavailable:/);
    expect(error.message).toContain('<url>');
  });

  it("answers with only the info dict's fields the service reads: no media URL crosses back", async () => {
    const answer = await handlerAnswer('clip');
    expect(JSON.stringify(answer)).not.toMatch(/https?:|SECRET/);
    expect(answer).toMatchObject({ info: { duration: 3, title: 'Fake clip clip', requested_formats: [{ filesize: 50_000 }, { filesize: 20_000 }] } });
  });

  it('stops a provider that does not answer before the function would time out: 503 provider_unavailable', async () => {
    const started = Date.now();
    // The handler keeps 2 s of the deadline to answer: yt-dlp gets 1 s of 3.
    const error = await apiErrorOf(localProviderPages(fakeYtDlpPath, 3).describe(page('slow')));
    expect(error).toMatchObject({ code: 'provider_unavailable', status: 503 });
    expect(error.message).toBe('The provider page could not be resolved now (the provider did not describe the video within 1 seconds); try again later.');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('without yt-dlp: 503 provider_unavailable naming what to install', async () => {
    const error = await apiErrorOf(localProviderPages(join(tmpdir(), 'no-such-yt-dlp')).describe(page('clip')));
    expect(error).toMatchObject({ code: 'provider_unavailable', status: 503 });
    expect(error.message).toContain('install the Debian package yt-dlp or set YT_DLP_PATH');
  });

  it('a handler that fails (no such file, no python3): 503 provider_unavailable, never a crash', async () => {
    const broken = providerPageResolver(
      processProviderResolver({ handlerPath: join(tmpdir(), 'no-such-handler.py'), timeoutSeconds: 5, python: localPython(), ytDlpPath: fakeYtDlpPath }),
    );
    expect(await apiErrorOf(broken.describe(page('clip')))).toMatchObject({ code: 'provider_unavailable', status: 503 });
    const noPython = providerPageResolver(
      processProviderResolver({ handlerPath: resolverHandlerPath, timeoutSeconds: 5, python: join(tmpdir(), 'no-such-python3') }),
    );
    expect(await apiErrorOf(noPython.describe(page('clip')))).toMatchObject({ code: 'provider_unavailable', status: 503 });
  });

  it('runs the yt_dlp package its own Python sees, the way the layer gives it to the function', async () => {
    // Debian's package, for Debian's python3 (the layer's copy of it: test/infra/provider-resolver.test.ts).
    if (!existsSync('/usr/lib/python3/dist-packages/yt_dlp')) return;
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [resolverHandlerPath, '--timeout-seconds', '20', 'https://www.youtube.com/watch?v=clip'], {
      env: { PATH: '/nonexistent' },
    });
    // No internet here: yt-dlp itself ran, and refused the truncated id (or could not connect).
    expect(JSON.parse(stdout)).toMatchObject({ error: 'failed', message: expect.stringMatching(/^ERROR: \[youtube/) as string });
  });

  it('is reported to the AWS call recorder as the route invoking the function', async () => {
    const calls: StandInCall[] = [];
    installAwsCallHooks({ standIn: (call) => calls.push(call) });
    try {
      await localProviderPages(fakeYtDlpPath).describe(page('clip'));
    } finally {
      installAwsCallHooks(undefined);
    }
    expect(calls).toEqual([{ clientName: 'LambdaClient', commandName: 'InvokeCommand', input: { FunctionName: '${PROVIDER_RESOLVER_FUNCTION}' } }]);
  });

  it("runs under the function's timeout, which leaves a route time to answer within the API's 29 s", () => {
    expect(resolverContract).toMatchObject({ runtime: 'python3.12', ytDlpLayer: true, timeoutSeconds: 25 });
  });
});

describe('the resolver function invoked through Lambda (the AWS host)', () => {
  const lambda = new LambdaClient({ region: 'us-east-1' });
  const mock = mockClient(lambda);
  const resolver = providerPageResolver(lambdaProviderResolver(lambda, 'MediaScanner-ProviderResolver'));
  const payload = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as never;
  afterEach(() => mock.reset());

  it('sends the page URL as the event and answers with the facts', async () => {
    mock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(await handlerAnswer('clip')) });
    expect(await resolver.describe(page('clip'))).toEqual(clipFacts);
    const [call] = mock.commandCalls(InvokeCommand);
    expect(call?.args[0].input.FunctionName).toBe('MediaScanner-ProviderResolver');
    expect(JSON.parse(new TextDecoder().decode(call?.args[0].input.Payload as Uint8Array))).toEqual({ url: page('clip').href });
  });

  it.each([
    ['the handler timed out yt-dlp', { StatusCode: 200, Payload: payload({ error: 'timed_out', seconds: 23 }) }, /within 23 seconds/],
    [
      'Lambda ended the function at its timeout',
      { StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out after 25.00 seconds' }) },
      /the resolver failed/,
    ],
    [
      'the handler raised',
      { StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ errorType: 'ValueError', errorMessage: 'the event names no page URL' }) },
      /the resolver failed/,
    ],
    ['an answer of another shape', { StatusCode: 200, Payload: payload({ something: 'else' }) }, /the resolver failed/],
  ])('%s: 503 provider_unavailable', async (_why, reply, message) => {
    mock.on(InvokeCommand).resolves(reply);
    const error = await apiErrorOf(resolver.describe(page('clip')));
    expect(error).toMatchObject({ code: 'provider_unavailable', status: 503 });
    expect(error.message).toMatch(message);
  });

  it('a refused invocation (throttled, no permission): 503 provider_unavailable', async () => {
    mock.on(InvokeCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    expect(await apiErrorOf(resolver.describe(page('clip')))).toMatchObject({ code: 'provider_unavailable', status: 503 });
  });

  it("a page the provider refuses: 422 source_unreadable, with yt-dlp's reason and no URL", async () => {
    mock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload(await handlerAnswer('unavailable')) });
    const error = await apiErrorOf(resolver.describe(page('unavailable')));
    expect(error).toMatchObject({ code: 'source_unreadable', status: 422 });
    expect(error.message).not.toMatch(/SECRET|https?:/);
  });
});
