/**
 * Signal extraction for long sources as a Fargate task (the analysis workflow's container task):
 * the cluster and its network, the x86_64 task definition and its image asset, the
 * ecs:runTask.sync state with its substitutions, and what the state machine may do with it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { buildSync } from 'esbuild';
import { containerPlacement, workflows, type ContainerTask } from '../../functions/workflows/registry.js';
import { containerContractOf, units } from '../../functions/runtime/contracts.js';
import { shippedFiles } from '../../functions/runtime/shipped-files.js';
import { containerTaskBundle } from '../../infra/constructs/service-container-task.js';
import { ffmpegPath } from '../helpers/ground-truth-media.js';
import { espeakInstalled, normalisedWords, speak, wordErrors } from '../helpers/speech-media.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import type { SynthesizedAssembly } from './synth.js';
import { stateMachineDeploying, TemplateQueries, type FnGetAtt, type Statement } from './template.js';

const analysis = workflows.analysis;
const signalsTask: ContainerTask = analysis.containerTasks.SignalsTaskDefinitionArn;
const containerTaskCount = Object.keys(analysis.containerTasks).length;
/** Every workflow's container tasks (analysis, render): one image each. */
const allContainerTaskCount = Object.values(workflows).reduce(
  (n, workflow) => n + Object.keys('containerTasks' in workflow ? workflow.containerTasks : {}).length,
  0,
);
const asl = readFileSync(new URL(`../../${analysis.definitionFile}`, import.meta.url), 'utf8');
const repoRoot = join(import.meta.dirname, '..', '..');

let synthesized: SynthesizedAssembly;
let template: Template;
let q: TemplateQueries;

// The template and the staged image asset (a copy, not a build), from the run's one synthesis (shared-assembly-setup.ts).
beforeAll(async () => {
  synthesized = await sharedAssembly();
  template = synthesized.template;
  q = new TemplateQueries(template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

const machine = () => stateMachineDeploying(q, asl);
const onlyId = (type: string): string => {
  const ids = Object.keys(q.find(type));
  expect(ids, type).toHaveLength(1);
  return ids[0]!;
};
const taskDefinitionId = () => machine().taskDefinitionIds.SignalsTaskDefinitionArn!;
const taskDefinition = () => q.resource(taskDefinitionId()).Properties;
const roleOf = (attribute: 'TaskRoleArn' | 'ExecutionRoleArn') => (taskDefinition()[attribute] as FnGetAtt)['Fn::GetAtt'][0];
const actions = (statement: Statement): string[] => [statement.Action].flat();

/** Every Task state of a (nested) ASL document, by name. */
function taskStates(node: unknown): Record<string, Record<string, unknown>> {
  if (typeof node !== 'object' || node === null) return {};
  const states = (node as { States?: Record<string, Record<string, unknown>> }).States ?? {};
  return Object.fromEntries(
    Object.entries(states).flatMap(([name, state]) => [
      ...(state.Type === 'Task' ? [[name, state] as const] : []),
      ...Object.entries(taskStates(state.ItemProcessor)),
    ]),
  );
}

describe('cluster and network', () => {
  it('is one ECS cluster with Container Insights', () => {
    template.hasResourceProperties('AWS::ECS::Cluster', { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] });
    onlyId('AWS::ECS::Cluster');
  });

  it('runs tasks in two public subnets of its own VPC, without NAT gateways, S3 and DynamoDB through gateway endpoints', () => {
    onlyId('AWS::EC2::VPC');
    template.resourceCountIs('AWS::EC2::Subnet', containerPlacement.subnets.length);
    template.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: true });
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    const endpoints = Object.values(q.find('AWS::EC2::VPCEndpoint')).map((e) => JSON.stringify(e.Properties.ServiceName));
    expect(endpoints).toHaveLength(2);
    expect(endpoints.some((name) => name.includes('.s3'))).toBe(true);
    expect(endpoints.some((name) => name.includes('.dynamodb'))).toBe(true);
    for (const endpoint of Object.values(q.find('AWS::EC2::VPCEndpoint'))) expect(endpoint.Properties.VpcEndpointType).toBe('Gateway');
    template.hasResourceProperties('AWS::EC2::FlowLog', { ResourceType: 'VPC', TrafficType: 'REJECT' });
  });

  it('gives tasks a security group that admits nothing and lets only HTTPS out', () => {
    const [group] = Object.values(q.find('AWS::EC2::SecurityGroup'));
    expect(group!.Properties.SecurityGroupIngress).toBeUndefined();
    expect(group!.Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 })]);
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
  });
});

describe('task definition', () => {
  it('is an x86_64 Fargate task (the pinned ffmpeg build’s architecture) with the cpu and memory of its workflow-table entry', () => {
    expect(taskDefinition()).toMatchObject({
      RequiresCompatibilities: ['FARGATE'],
      NetworkMode: 'awsvpc',
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      Cpu: String(signalsTask.cpu),
      Memory: String(signalsTask.memoryMb),
    });
  });

  it('runs one read-only container, named as the state addresses it, logging to its own log group, with the functions’ configuration', () => {
    const [container, ...others] = taskDefinition().ContainerDefinitions as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(container).toMatchObject({ Name: signalsTask.containerName, Essential: true, ReadonlyRootFilesystem: true });
    const environment = Object.fromEntries((container!.Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]));
    expect(environment).toMatchObject({
      TABLE_NAME: { Ref: expect.stringMatching(/^Table/) as unknown },
      MEDIA_BUCKET: { Ref: expect.stringMatching(/^MediaBucket/) as unknown },
      AWS_REGION: { Ref: 'AWS::Region' },
      LOG_LEVEL: 'INFO',
    });
    const logging = container!.LogConfiguration as { LogDriver: string; Options: { 'awslogs-group': { Ref: string } } };
    expect(logging.LogDriver).toBe('awslogs');
    expect(q.resource(logging.Options['awslogs-group'].Ref).Properties.RetentionInDays).toBe(30);
  });

  it('gives the task role the table and bucket access of its entry, no secret, and nothing to do with workflows', () => {
    const granted = q.statementsOfRole(roleOf('TaskRoleArn')).flatMap(actions);
    expect(granted).toContain('dynamodb:Query');
    expect(granted.includes('dynamodb:PutItem')).toBe(signalsTask.table === 'readWrite');
    expect(granted).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:ListBucket']));
    expect(granted).not.toContain('secretsmanager:GetSecretValue');
    expect(granted.filter((a) => /^(states|lambda|ecs|iam):/.test(a))).toEqual([]);
  });

  it('builds its image for linux/amd64 from a staged context: the Dockerfile of layers/ffmpeg, the bundled entrypoint and the pinned ffmpeg', () => {
    const manifest = JSON.parse(readFileSync(join(synthesized.assemblyDirectory, `${synthesized.stackArtifactId}.assets.json`), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; dockerFile?: string; dockerBuildArgs?: Record<string, string>; platform: string } }>;
    };
    // One image for every container task: each task's entrypoint is a bundle of its own in task/.
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    for (const { source } of images) expect(source).toEqual({ directory: expect.stringMatching(/^asset\.[0-9a-f]{64}$/) as unknown, platform: 'linux/amd64' });
    const staged = join(synthesized.assemblyDirectory, images[0]!.source.directory);
    expect(readdirSync(staged).sort()).toEqual(['Dockerfile', 'bin', 'detector', 'ffmpeg.json', 'fonts', 'speech', 'task']);
    expect(readdirSync(join(staged, 'task')).length).toBe(2 * allContainerTaskCount);
    expect(readdirSync(join(staged, 'bin')).sort()).toEqual(['ffmpeg', 'ffprobe']);
    for (const binary of ['ffmpeg', 'ffprobe']) expect(statSync(join(staged, 'bin', binary)).mode & 0o777, binary).toBe(0o755);
    expect(readFileSync(join(staged, 'Dockerfile'), 'utf8')).toBe(readFileSync(new URL('../../layers/ffmpeg/Dockerfile', import.meta.url), 'utf8'));

    // The task's entrypoint, bundled whole: the AWS SDK and every other package inside, only Node's
    // own modules imported (a container has no runtime-provided SDK and no node_modules). esbuild
    // lists the bundle's imports.
    const bundleFile = join(staged, 'task', `${signalsTask.containerName}.mjs`);
    const { metafile } = buildSync({
      entryPoints: [bundleFile],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const imported = Object.values(metafile.inputs).flatMap((input) => input.imports.filter((i) => i.kind !== 'require-call').map((i) => i.path));
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
    const bundle = readFileSync(bundleFile, 'utf8');
    // CommonJS dependencies call require(), and TensorFlow.js's WASM loader reads __dirname: ESM defines neither.
    expect(bundle.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    expect(bundle.split('\n', 1)[0]).toContain('const require = createRequire(import.meta.url); const __filename = ');
    expect(bundle.split('\n', 1)[0]).toContain('const __dirname = ');
    expect(bundle.trimEnd().endsWith(`//# sourceMappingURL=${signalsTask.containerName}.mjs.map`)).toBe(true);
    const map = JSON.parse(readFileSync(`${bundleFile}.map`, 'utf8')) as { sources: string[] };
    expect(map.sources).toContain(`functions/${signalsTask.entrypoint}.ts`);
  });

  it('runs the bundled entrypoint with the pinned ffmpeg at the layer’s paths, as the image’s unprivileged user, installing only Debian’s yt-dlp and pocketsphinx', () => {
    const dockerfile = readFileSync(new URL('../../layers/ffmpeg/Dockerfile', import.meta.url), 'utf8');
    const instructions = dockerfile
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'))
      .join('\n')
      .replaceAll(/\\\n\s*/g, '');
    expect(instructions.split('\n').map((line) => line.split(/\s/)[0])).toEqual([
      'FROM',
      'RUN',
      'ENV',
      'COPY',
      'COPY',
      'COPY',
      'COPY',
      'COPY',
      'COPY',
      'VOLUME',
      'USER',
      'ENTRYPOINT',
    ]);
    expect(instructions).toMatch(
      /^RUN apt-get update && apt-get install -y --no-install-recommends yt-dlp ca-certificates pocketsphinx pocketsphinx-en-us && rm -rf \/var\/lib\/apt\/lists\/\*$/m,
    );
    // The base pinned by digest: the same bytes on every build.
    expect(instructions).toMatch(/^FROM node:24-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    expect(instructions).toMatch(/FFMPEG_PATH=\/opt\/bin\/ffmpeg/);
    expect(instructions).toMatch(/FFPROBE_PATH=\/opt\/bin\/ffprobe/);
    expect(instructions).toMatch(/^COPY bin\/ \/opt\/bin\/$/m);
    // The caption fonts, where CAPTION_FONTS_DIR points (no font lookup in the image).
    expect(instructions).toMatch(/^COPY fonts\/ \/opt\/fonts\/$/m);
    expect(instructions).toMatch(/CAPTION_FONTS_DIR=\/opt\/fonts/);
    // Render framing's face model and TensorFlow.js's .wasm files, where the detector settings point.
    expect(instructions).toMatch(/^COPY detector\/ \/opt\/detector\/$/m);
    expect(instructions).toMatch(/FACE_MODEL_DIR=\/opt\/detector/);
    // The moonshine transcriber's models and runtime, where SPEECH_MODEL_DIR points.
    expect(instructions).toMatch(/^COPY speech\/ \/opt\/speech\/$/m);
    expect(instructions).toMatch(/SPEECH_MODEL_DIR=\/opt\/speech/);
    expect(instructions).toMatch(/^USER node$/m);
    // Scratch space at /tmp starts as the image has it (1777), not as a root-owned 0755 bind mount.
    expect(instructions).toMatch(/^VOLUME \["\/tmp"\]$/m);
    // The task definition's command names the program: one image serves every task.
    expect(instructions).toMatch(/^ENTRYPOINT \["node"\]$/m);
    expect(instructions).toMatch(/^COPY task\/ \/task\/$/m);
  });
});

describe('the image’s data directories', () => {
  const staged = () => {
    const manifest = JSON.parse(readFileSync(join(synthesized.assemblyDirectory, `${synthesized.stackArtifactId}.assets.json`), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string } }>;
    };
    return join(synthesized.assemblyDirectory, Object.values(manifest.dockerImages)[0]!.source.directory);
  };

  it('are where the signals task’s contract says, copied from the staged folder of their kind, holding exactly the files the local sandbox shows there', () => {
    const dockerfile = readFileSync(new URL('../../layers/ffmpeg/Dockerfile', import.meta.url), 'utf8');
    const contract = containerContractOf(units.container('analysis', 'SignalsTaskDefinitionArn'));
    // Beside them, pocketsphinx's model, which its Debian package installs (test/unit/runtime/contracts.test.ts).
    expect(Object.keys(contract.files).sort()).toEqual([...Object.keys(shippedFiles), 'pocketsphinx-model'].sort());
    for (const [kind, directory] of Object.entries(contract.files).filter(([kind]) => kind in shippedFiles)) {
      expect(dockerfile, kind).toMatch(new RegExp(`^COPY ${kind}/ ${directory}/$`, 'm'));
      const files = readdirSync(join(staged(), kind), { recursive: true, encoding: 'utf8' }).filter((file) => statSync(join(staged(), kind, file)).isFile());
      expect(files.sort(), kind).toEqual(
        shippedFiles[kind as keyof typeof shippedFiles]()
          .map((file) => file.name)
          .sort(),
      );
    }
  });

  it.skipIf(!espeakInstalled)(
    'speech: the moonshine transcriber, bundled as the image bundles it, hears espeak-ng’s words with nothing but the staged folder (no node_modules in reach)',
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'media-scanner-speech-'));
      try {
        const { path } = await speak('espeak:en-us:150', 'Please call me when you get home tonight', join(work, 'speech.wav'));
        const entry = [
          `import { moonshineTranscriber } from ${JSON.stringify(join(repoRoot, 'functions/adapters/transcribers/moonshine.ts'))};`,
          `import { resolveSpeechModelFiles } from ${JSON.stringify(join(repoRoot, 'functions/adapters/transcribers/moonshine-model.ts'))};`,
          'const [ffmpegPath, speechDir, url] = process.argv.slice(2);',
          'const segments = await moonshineTranscriber({ ffmpegPath, models: resolveSpeechModelFiles(speechDir), aligner: null }).transcribe({ url, objectKey: "unused", window: { startMs: 0, endMs: 30000 } });',
          'console.log(JSON.stringify(segments.map((s) => s.text).join(" ")));',
        ].join('\n');
        const bundle = join(work, 'transcribe.mjs');
        buildSync({ stdin: { contents: entry, resolveDir: repoRoot, loader: 'ts' }, outfile: bundle, ...containerTaskBundle, logLevel: 'warning' });
        const run = spawnSync(process.execPath, [bundle, ffmpegPath(), join(staged(), 'speech'), path], { cwd: work, encoding: 'utf8', timeout: 120_000 });
        expect(run.status, run.stderr).toBe(0);
        const heard = normalisedWords(JSON.parse(run.stdout) as string);
        expect(wordErrors(normalisedWords('Please call me when you get home tonight'), heard), heard.join(' ')).toBeLessThanOrEqual(2);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    180_000,
  );
});

describe('the analysis state machine', () => {
  it('runs the task with ecs:runTask.sync on Fargate, passing the chunk in TASK_INPUT, with the cluster, task definition and network substituted', () => {
    const containerStates = Object.values(taskStates(JSON.parse(asl))).filter(
      (s) =>
        s.Resource === 'arn:aws:states:::ecs:runTask.sync' && (s.Parameters as { TaskDefinition: string }).TaskDefinition === '${SignalsTaskDefinitionArn}',
    );
    expect(containerStates).toHaveLength(1);
    expect(containerStates[0]!.Parameters).toEqual({
      LaunchType: 'FARGATE',
      Cluster: `\${${containerPlacement.cluster}}`,
      TaskDefinition: '${SignalsTaskDefinitionArn}',
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          Subnets: containerPlacement.subnets.map((p) => `\${${p}}`),
          SecurityGroups: [`\${${containerPlacement.securityGroup}}`],
          AssignPublicIp: 'ENABLED',
        },
      },
      Overrides: { ContainerOverrides: [{ Name: signalsTask.containerName, Environment: [{ Name: 'TASK_INPUT', 'Value.$': 'States.JsonToString($)' }] }] },
    });
    // ECS's capacity and throttling refusals wait for capacity (admission, docs/scanners-and-runs.md); a failed task is retried briefly.
    expect(containerStates[0]!.Retry).toEqual([
      expect.objectContaining({ ErrorEquals: ['ECS.AmazonECSException', 'ECS.ThrottlingException'] }),
      expect.objectContaining({ ErrorEquals: ['States.TaskFailed'] }),
    ]);

    const substitutions = machine().resource.Properties.DefinitionSubstitutions as Record<string, unknown>;
    expect(substitutions.SignalsTaskDefinitionArn).toEqual(taskDefinition().Family);
    expect(substitutions[containerPlacement.cluster]).toEqual({ 'Fn::GetAtt': [onlyId('AWS::ECS::Cluster'), 'Arn'] });
    expect(containerPlacement.subnets.map((p) => substitutions[p])).toEqual(Object.keys(q.find('AWS::EC2::Subnet')).map((id) => ({ Ref: id })));
    expect(substitutions[containerPlacement.securityGroup]).toEqual({ 'Fn::GetAtt': [onlyId('AWS::EC2::SecurityGroup'), 'GroupId'] });
  });

  it('may run every revision of exactly those task definition families, stop and describe only its cluster’s tasks, pass only its roles to ECS, and manage the .sync events rule', () => {
    const roleId = (machine().resource.Properties.RoleArn as FnGetAtt)['Fn::GetAtt'][0];
    const statements = q.statementsOfRole(roleId);
    const families = Object.values(machine().taskDefinitionIds).map((id) => q.resource(id).Properties.Family as string);
    const familyArn = (family: string) => ({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ecs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:task-definition/${family}:*`]],
    });
    expect(q.resourcesGranted(statements, 'ecs:RunTask')).toEqual(expect.arrayContaining(families.map(familyArn)));
    expect(q.resourcesGranted(statements, 'ecs:RunTask')).toHaveLength(containerTaskCount);
    const clusterTasks = [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ecs:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':task/',
      { Ref: onlyId('AWS::ECS::Cluster') },
      '/*',
    ];
    for (const action of ['ecs:StopTask', 'ecs:DescribeTasks']) {
      expect(q.resourcesGranted(statements, action), action).toEqual([{ 'Fn::Join': ['', clusterTasks] }]);
    }
    const passRole = statements.filter((s) => actions(s).includes('iam:PassRole'));
    // Two roles (task and execution) per container task.
    expect(q.resourcesGranted(statements, 'iam:PassRole')).toHaveLength(2 * containerTaskCount);
    expect(passRole).toContainEqual(
      expect.objectContaining({
        Resource: expect.arrayContaining([{ 'Fn::GetAtt': [roleOf('TaskRoleArn'), 'Arn'] }, { 'Fn::GetAtt': [roleOf('ExecutionRoleArn'), 'Arn'] }]) as unknown,
        Condition: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
    for (const statement of passRole)
      expect((statement as { Condition?: unknown }).Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
    for (const action of ['events:PutTargets', 'events:PutRule', 'events:DescribeRule']) {
      expect(JSON.stringify(q.resourcesGranted(statements, action)), action).toContain(':rule/StepFunctionsGetEventsForECSTaskRule');
    }
    expect(
      statements
        .flatMap(actions)
        .filter((a) => a.startsWith('ecs:'))
        .sort(),
    ).toEqual(['ecs:DescribeTasks', 'ecs:RunTask', 'ecs:StopTask']);
  });

  it('routes each chunk by the runner PlanChunks chose, both paths reaching AnalyzeChunk (through the transcript wait for chunks planned with a transcription job)', () => {
    const processor = (JSON.parse(asl) as { States: Record<string, { ItemProcessor?: { StartAt: string; States: Record<string, Record<string, unknown>> } }> })
      .States.AnalyzeChunks!.ItemProcessor!;
    const choice = processor.States[processor.StartAt]!;
    expect(choice).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.chunk.runner', StringEquals: 'container', Next: 'ExtractChunkSignalsInContainer' }],
      Default: 'ExtractChunkSignals',
    });
    for (const name of ['ExtractChunkSignals', 'ExtractChunkSignalsInContainer'])
      expect(processor.States[name], name).toMatchObject({ ResultPath: null, Next: 'ChooseTranscriptWait' });
    expect(processor.States.ChooseTranscriptWait).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.chunk.transcription', StringEquals: 'job', Next: 'AwaitTranscript' }],
      Default: 'AnalyzeChunk',
    });
    // The wait holds no function: a poll, a choice, a Wait state, and again until the transcript is merged.
    expect(processor.States.AwaitTranscript).toMatchObject({
      Type: 'Task',
      Resource: '${AwaitTranscriptFunction}',
      ResultPath: '$.transcript',
      Next: 'TranscriptReady',
    });
    expect(processor.States.TranscriptReady).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.transcript.ready', BooleanEquals: true, Next: 'AnalyzeChunk' }],
      Default: 'WaitForTranscript',
    });
    expect(processor.States.WaitForTranscript).toMatchObject({ Type: 'Wait', Next: 'AwaitTranscript' });
  });
});

describe('the source-acquisition task', () => {
  const acquireTask: ContainerTask = analysis.containerTasks.AcquireSourceTaskDefinitionArn;

  it('has task storage for whole downloads, mounted at /tmp under a read-only root file system', () => {
    const definition = q.resource(machine().taskDefinitionIds.AcquireSourceTaskDefinitionArn!).Properties;
    expect(definition).toMatchObject({
      Cpu: String(acquireTask.cpu),
      Memory: String(acquireTask.memoryMb),
      EphemeralStorage: { SizeInGiB: acquireTask.scratchGiB },
    });
    expect(definition.Volumes).toEqual([{ Name: 'scratch0' }]);
    const [container] = definition.ContainerDefinitions as Record<string, unknown>[];
    expect(container).toMatchObject({
      Name: acquireTask.containerName,
      ReadonlyRootFilesystem: true,
      MountPoints: [{ ContainerPath: '/tmp', SourceVolume: 'scratch0', ReadOnly: false }],
    });
  });

  it('is chosen by MarkProcessing, and either runner goes on to PlanChunks; scanner runs skip it', () => {
    const states = (JSON.parse(asl) as { States: Record<string, Record<string, unknown>> }).States;
    expect(states.MarkProcessing).toMatchObject({ ResultPath: '$.run', Next: 'ChooseSourceStep' });
    expect(states.ChooseSourceStep).toMatchObject({
      Type: 'Choice',
      Choices: [
        { Variable: '$.run.acquisition', StringEquals: 'lambda', Next: 'AcquireSource' },
        { Variable: '$.run.acquisition', StringEquals: 'container', Next: 'AcquireSourceInContainer' },
      ],
      Default: 'PlanChunks',
    });
    for (const name of ['AcquireSource', 'AcquireSourceInContainer']) {
      expect(states[name], name).toMatchObject({
        ResultPath: null,
        Next: 'PlanChunks',
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'FailRun' }],
      });
    }
    expect((states.AcquireSourceInContainer!.Parameters as { Overrides: unknown }).Overrides).toEqual({
      ContainerOverrides: [{ Name: acquireTask.containerName, Environment: [{ Name: 'TASK_INPUT', 'Value.$': 'States.JsonToString($)' }] }],
    });
  });
});
