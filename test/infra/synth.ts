import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS, FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT, VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { createApp, type ServiceApp } from '../../infra/create-app.js';

/** The parts of CDK's validation-report.json the tests read. */
export interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly metadata?: { readonly error?: string };
    readonly violations: readonly {
      readonly ruleName: string;
      readonly severity: string;
      readonly description: string;
      readonly violatingConstructs: readonly { readonly constructPath: string }[];
    }[];
  }[];
}

/** A synthesized cloud assembly as the tests read it. */
export interface SynthesizedAssembly {
  readonly template: Template;
  readonly validationReport: ValidationReport;
  /** The cloud assembly directory: staged (bundled) assets are its `asset.*` subdirectories. */
  readonly assemblyDirectory: string;
  /** The stack's artifact id: its template is `<id>.template.json`, its asset manifest `<id>.assets.json`. */
  readonly stackArtifactId: string;
  /** The deployed stack name, which the service's state machine names start with. */
  readonly stackName: string;
}

export interface Synthesized extends ServiceApp, SynthesizedAssembly {
  /** Removes the cloud assembly (bundled functions included) from the temporary directory. */
  readonly dispose: () => void;
}

// The feature flags `cdk synth` reads from cdk.json, so the tests see the template the CLI deploys.
const cdkContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface SynthesizeOptions {
  /** Settings as if committed to cdk.json's "context", where persisted settings belong (infra/deployment-context.ts). */
  readonly cdkJson?: Readonly<Record<string, unknown>>;
  /** Changes the app before synthesis. */
  readonly modify?: (app: ServiceApp) => void;
  /** Run esbuild for every function (slow); off when only the template's shape matters. @default true */
  readonly bundle?: boolean;
  /** An empty directory to synthesize into. @default a new temporary directory */
  readonly outdir?: string;
}

const readValidationReport = (assemblyDirectory: string): ValidationReport =>
  JSON.parse(readFileSync(join(assemblyDirectory, VALIDATION_REPORT_FILE), 'utf8')) as ValidationReport;

/**
 * Builds the app exactly as infra/app.ts does and synthesizes it into a temporary directory.
 * Validation failures (cdk-nag) are left in the report for the tests to inspect instead of
 * aborting synthesis, which is what makes `cdk synth` fail.
 */
export function synthesize({
  cdkJson = {},
  modify,
  bundle = true,
  outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-')),
}: SynthesizeOptions = {}): Synthesized {
  const committedContext = { ...cdkContext, ...cdkJson };
  const serviceApp = createApp({
    outdir,
    committedContext,
    context: {
      ...committedContext,
      [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false,
      ...(bundle ? {} : { [BUNDLING_STACKS]: [] }),
    },
  });
  modify?.(serviceApp);
  const assembly = serviceApp.app.synth();
  return {
    ...serviceApp,
    template: Template.fromStack(serviceApp.stack),
    validationReport: readValidationReport(assembly.directory),
    assemblyDirectory: assembly.directory,
    stackArtifactId: serviceApp.stack.artifactId,
    stackName: serviceApp.stack.stackName,
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

interface AssemblyManifest {
  readonly artifacts: Record<string, { readonly type: string; readonly properties?: { readonly templateFile?: string; readonly stackName?: string } }>;
}

/** A cloud assembly synthesized earlier (by `synthesize`, in this process or another), read back from its directory. */
export function readAssembly(assemblyDirectory: string): SynthesizedAssembly {
  const manifest = JSON.parse(readFileSync(join(assemblyDirectory, 'manifest.json'), 'utf8')) as AssemblyManifest;
  const stacks = Object.entries(manifest.artifacts).filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  if (stacks.length !== 1) throw new Error(`Expected one stack in ${assemblyDirectory}, found ${stacks.length}`);
  const [[stackArtifactId, { properties }]] = stacks as [[string, AssemblyManifest['artifacts'][string]]];
  const template = JSON.parse(readFileSync(join(assemblyDirectory, properties?.templateFile ?? `${stackArtifactId}.template.json`), 'utf8')) as Record<
    string,
    unknown
  >;
  return {
    template: Template.fromJSON(template),
    validationReport: readValidationReport(assemblyDirectory),
    assemblyDirectory,
    stackArtifactId,
    stackName: properties?.stackName ?? stackArtifactId,
  };
}

/**
 * One line per violation a validation plugin reported at `severities`, plus the plugin's own crash
 * if it had one. Acknowledged violations are not reported.
 */
export function violations(report: ValidationReport, pluginName: string, severities: readonly string[]): string[] {
  return report.pluginReports
    .filter((plugin) => plugin.pluginName === pluginName)
    .flatMap((plugin) => [
      ...(plugin.metadata?.error ? [plugin.metadata.error] : []),
      ...plugin.violations
        .filter((violation) => severities.includes(violation.severity))
        .flatMap((violation) => violation.violatingConstructs.map((c) => `${violation.ruleName} at ${c.constructPath}: ${violation.description}`)),
    ]);
}

/** Unacknowledged cdk-nag AwsSolutions errors: any of them makes `cdk synth` fail. */
export const awsSolutionsErrors = (report: ValidationReport): string[] => violations(report, 'AwsSolutions', ['error']);
